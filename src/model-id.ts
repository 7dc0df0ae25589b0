/**
 * What a model id says by itself: `provider:model` (`openai:gpt-5.2`, `anthropic:claude-haiku-4-5`),
 * a bare id being Anthropic's. Pure, so the renderers (which name a model and its provider in
 * ATIF and OpenTelemetry exports) and model/provider.ts read ids the same way.
 */

export const PROVIDERS = ["anthropic", "openai"] as const;
export type ProviderName = (typeof PROVIDERS)[number];

export interface ProviderModel {
  provider: ProviderName;
  /** The id the provider's API knows, without the prefix. */
  model: string;
}

/**
 * A provider prefix is a plain word before the first colon. Ids with a colon of their own keep
 * working: Bedrock's `anthropic.claude-...-v1:0` has dots before it, and an Ollama tag goes after
 * the prefix (`openai:llama3:8b`).
 */
const PREFIXED_ID = /^([A-Za-z][A-Za-z0-9_-]*):(.+)$/s;

export function splitModelId(id: string): { prefix: string | null; model: string } {
  const match = PREFIXED_ID.exec(id.trim());
  return match
    ? { prefix: (match[1] as string).toLowerCase(), model: match[2] as string }
    : { prefix: null, model: id.trim() };
}

export function isProviderName(name: string): name is ProviderName {
  return (PROVIDERS as readonly string[]).includes(name);
}

/** The provider of a model id, or null when its prefix names none (for lookups that must not throw). */
export function providerOfModel(id: string): ProviderModel | null {
  const { prefix, model } = splitModelId(id);
  if (prefix === null) return { provider: "anthropic", model };
  return isProviderName(prefix) ? { provider: prefix, model } : null;
}
