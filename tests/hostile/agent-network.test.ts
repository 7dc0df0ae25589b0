/**
 * With the network off (the default), an external agent must reach nothing on the host but its
 * credential proxy (issue #25, break 5). A canary listener on the host's 127.0.0.1 answers a secret
 * to whoever connects; a `command` agent in the bwrap sandbox tries bash's /dev/tcp, curl and node
 * against it, and so do the built-in agent's bash calls (already confined). None may connect. The
 * control: the same agent in a scenario with `network: true` reaches it, so the probe itself works. (Claude Code's API calls through the proxy, with the
 * network off, are in tests/agents/claude-code.test.ts.)
 */
import { once } from "node:events";
import { mkdtemp } from "node:fs/promises";
import net from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgent } from "../../src/agents/registry.js";
import { defaultRunOptions } from "../../src/run/options.js";
import type { Scenario } from "../../src/scenario/types.js";
import { findBwrapProblem } from "../support/processes.js";
import { makeScenario } from "../support/scenario-factory.js";
import { eventsOf, runSingleTrial } from "../support/single-trial.js";
import { makeTempDir } from "../support/temp-dirs.js";

const CANARY_KEY = "sk-ant-canary-network-5e6f7a8b";
const CANARY_SECRET = "HOST-LOOPBACK-CANARY-0d9c8b7a";

/** Each way a script can open a TCP connection, one line of output each: `<way>: <what it read>`. */
const PROBE = `port=$CANARY_PORT
read_dev_tcp() { exec 3<>/dev/tcp/127.0.0.1/$port && head -c 200 <&3; }
echo "dev_tcp: $(read_dev_tcp 2>&1 | tr '\\n' ' ')"
if command -v curl >/dev/null; then echo "curl: $(curl -s -m 5 telnet://127.0.0.1:$port 2>&1 | head -c 200)"; fi
if command -v node >/dev/null; then
  echo "node: $(node -e '
    const s = require("net").connect(Number(process.argv[1]), "127.0.0.1");
    s.on("data", (d) => { process.stdout.write(String(d)); s.destroy(); });
    s.on("error", (e) => process.stdout.write("error " + e.code));
    setTimeout(() => { process.stdout.write("timeout"); process.exit(0); }, 5000).unref();
  ' "$port" 2>&1)"
fi
echo probe-done`;

const bwrapProblem = findBwrapProblem();
if (bwrapProblem) console.warn(`skipping the network containment test: ${bwrapProblem}`);

describe.skipIf(bwrapProblem !== null)("an external agent with the network off (bwrap)", () => {
  let canary: net.Server;
  let port: number;
  let connections = 0;
  const open = new Set<net.Socket>();
  let dir: string;

  beforeAll(async () => {
    dir = makeTempDir("ltt-hostile-net-");
    canary = net.createServer((socket) => {
      connections += 1;
      open.add(socket);
      socket.on("close", () => open.delete(socket));
      socket.on("error", () => socket.destroy());
      socket.end(`${CANARY_SECRET}\n`);
    });
    canary.listen(0, "127.0.0.1");
    await once(canary, "listening");
    port = (canary.address() as net.AddressInfo).port;
  });

  afterAll(async () => {
    for (const socket of open) socket.destroy();
    await new Promise<void>((resolve) => canary.close(() => resolve()));
  });

  async function runProbe(network: boolean, agentName: "command" | "oracle" = "command") {
    const template = "bash probe.sh";
    const scenario: Scenario = makeScenario({
      id: network ? "net-on" : "net-off",
      files: { "probe.sh": PROBE },
      target: { env: { CANARY_PORT: String(port) } },
      solution: [template],
      ...(network ? { network: true } : {}),
    });
    const outDir = await mkdtemp(path.join(dir, "out-"));
    const options = defaultRunOptions({
      outDir,
      agent: agentName,
      ...(agentName === "command" ? { agentCommand: template } : {}),
      trialTimeoutMs: 60_000,
      sandbox: "bwrap",
    });
    const agent = createAgent(agentName, agentName === "command" ? { agentCommand: template } : {});
    const { events } = await runSingleTrial(scenario, options, agent, { canaryKey: CANARY_KEY });
    // The command agent's stdout, or the built-in agent's bash calls' (the oracle replays the solution).
    const output = [
      ...eventsOf(events, "agent_output").map((event) => event.text),
      ...eventsOf(events, "tool_result").map((event) => event.stdout),
    ].join("\n");
    expect(output).toContain("probe-done");
    return output;
  }

  it("reaches nothing on the host's loopback: /dev/tcp, curl and node all fail", async () => {
    const before = connections;
    const output = await runProbe(false);
    expect(output).toMatch(/^dev_tcp: /m);
    expect(output).toMatch(/^node: error ECONNREFUSED/m);
    expect(output).not.toContain(CANARY_SECRET);
    expect(connections).toBe(before);
  }, 120_000);

  it("holds for the built-in agent's bash calls too", async () => {
    const before = connections;
    const output = await runProbe(false, "oracle");
    expect(output).toMatch(/^node: error ECONNREFUSED/m);
    expect(output).not.toContain(CANARY_SECRET);
    expect(connections).toBe(before);
  }, 120_000);

  it("reaches it when the scenario allows the network (the probe works)", async () => {
    const before = connections;
    const output = await runProbe(true);
    expect(output).toContain(CANARY_SECRET);
    expect(connections).toBeGreaterThan(before);
  }, 120_000);
});
