/**
 * The HTTP transport to the model API: undici with keep-alive connections, through the proxy that
 * HTTPS_PROXY / HTTP_PROXY / NO_PROXY (or their lowercase forms, which win) name, as curl would.
 * Used by the Anthropic client (via undici's own `fetch`) and by the claude-code credential proxy.
 */
import { type Dispatcher, EnvHttpProxyAgent } from "undici";

/** The variables read: only the proxy ones (lowercase first, as curl and undici read them). */
export type ProxyEnv = Readonly<Record<string, string | undefined>>;

/**
 * One dispatcher per client: a keep-alive pool per origin, or a proxy's when the environment names
 * one. `https:` origins go through HTTPS_PROXY (else HTTP_PROXY) in a CONNECT tunnel; `http:`
 * origins through HTTP_PROXY as absolute-URI requests; hosts in NO_PROXY go direct.
 */
export function createHttpDispatcher(env: ProxyEnv = process.env): Dispatcher {
  return new EnvHttpProxyAgent({
    // An empty string (not undefined) keeps undici from reading process.env behind our back.
    httpProxy: env.http_proxy ?? env.HTTP_PROXY ?? "",
    httpsProxy: env.https_proxy ?? env.HTTPS_PROXY ?? "",
    noProxy: env.no_proxy ?? env.NO_PROXY ?? "",
    // Plain http through an HTTP proxy is forwarded, not tunnelled: proxies commonly refuse
    // CONNECT to ports other than 443.
    proxyTunnel: false,
    // The callers own their deadlines (the client's request timeout; the agent CLI's own), and a
    // long non-streaming answer can take more than undici's default five minutes to start.
    headersTimeout: 0,
    bodyTimeout: 0,
  });
}
