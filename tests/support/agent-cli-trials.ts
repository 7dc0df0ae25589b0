/**
 * The scaffold of the agent-CLI tests (claude-code, codex, gemini-cli, opencode): the real CLI through
 * the real trial harness (runTrial: sandbox, shim, events, gates), against a scripted server on
 * 127.0.0.1 speaking the CLI's wire format, behind the credential proxy; a trap HTTP(S) proxy catches
 * any request meant for anywhere else.
 *
 * `useAgentCliTrials(wire)` gives a test file its trials; `describeAgentCliContract` runs what every
 * CLI shares (one honest run per sandbox read by many assertions, the turn limit, an API error, a
 * timeout, a cancellation) against that wire, so each agent's file keeps only what is its own;
 * `describeStreamMapperContract` does the same for its stream mapper's ways to fail.
 */
import { type Dirent, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { mkdtemp } from "node:fs/promises";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { PLACEHOLDER_API_KEY } from "../../src/agents/credential-proxy.js";
import type { AgentName } from "../../src/agents/registry.js";
import type { Agent, AgentOutcome } from "../../src/agents/types.js";
import { defaultRunOptions } from "../../src/run/options.js";
import type { TrialOutput } from "../../src/run/trial.js";
import type { Scenario } from "../../src/scenario/types.js";
import type { EventInput, TrialEvent } from "../../src/transcript/events.js";
import { startLoopbackServer } from "./loopback-server.js";
import { findBwrapProblem, findLiveProcesses } from "./processes.js";
import { makeScenario } from "./scenario-factory.js";
import { eventsOf, runSingleTrial } from "./single-trial.js";
import { makeTempDir } from "./temp-dirs.js";

/**
 * The honest run makes a dozen calls in one trial: its trial may take three minutes (a CLI took
 * over 90 s for a few turns at a load of 20 on 2 cores), and a test waiting for it four.
 */
const HONEST_TRIAL_TIMEOUT_MS = 180_000;
export const HONEST_RUN_TEST_TIMEOUT_MS = 240_000;
/** A test of how a run ends: OpenCode took 115 s to be cancelled mid-call at a load of 24 on 2 cores. */
const RUN_END_TEST_TIMEOUT_MS = 240_000;

export type AgentCliSandbox = "local" | "bwrap";

const bwrapProblem = findBwrapProblem();
if (bwrapProblem) console.warn(`skipping the agent CLI's bwrap runs: ${bwrapProblem}`);
/** The sandboxes an agent CLI runs in here: bwrap only where it can run. */
export const AGENT_CLI_SANDBOXES: readonly AgentCliSandbox[] =
  bwrapProblem === null ? ["local", "bwrap"] : ["local"];

export interface AgentCliTrialOptions {
  sandbox?: AgentCliSandbox;
  maxTurns?: number;
  signal?: AbortSignal;
  maxRetries?: number;
  maxApiRequests?: number;
  model?: string;
  /** Default 90 s. */
  trialTimeoutMs?: number;
  /** A shell call's limit, which the harness gives the CLI; default 30 s. */
  commandTimeoutMs?: number;
  /** Where the trial's folder goes (its events.jsonl is written as events happen); default a fresh one. */
  outDir?: string;
}

/** What the contract reads of a recorded request. */
export interface WireRequest {
  headers: Record<string, unknown>;
}

/** What the contract reads of a scripted server. */
export interface WireServer<Request extends WireRequest> {
  url: string;
  requests: Request[];
  close(): Promise<void>;
}

/** One agent CLI and the wire format of its API, as its scripted server speaks it. */
export interface AgentCliWire<Reply, Request extends WireRequest, Server extends WireServer<Request>> {
  agent: AgentName;
  model: string;
  /** The real API key: it may reach the API only, never the CLI, its shell or the transcript. */
  canaryKey: string;
  /** A shell test that the CLI's own files (home, settings, sessions) stayed out of the work dir. */
  ownFilesAbsent: string;
  startServer(respond: (request: Request) => Reply | Promise<Reply>): Promise<Server>;
  /** The agent, its API at `server`, with the trial's retries and request cap. */
  createAgent(server: Server, options: AgentCliTrialOptions): Agent;
  /** Whether a request is the CLI's main loop (not a title, warm-up or side check). */
  isMainLoop(request: Request): boolean;
  /** Answers the main loop from `replies` by turn, anything else with a plain answer. */
  script(replies: Reply[]): (request: Request) => Reply;
  /** A reply calling the CLI's shell tool with `command`. */
  shell(command: string): Reply;
  /** A final answer. */
  text(text: string): Reply;
  /** The API key the request reached the API with. */
  keyOf(request: Request): string | undefined;
}

export interface AgentCliTrial<Server> {
  output: TrialOutput;
  events: TrialEvent[];
  eventsText: string;
  server: Server;
}

export interface TrapProxy {
  url: string;
  hits: string[];
  close(): Promise<void>;
}

/** An HTTP(S) proxy that records every request it gets and refuses it: nothing may leave the machine. */
async function startTrapProxy(): Promise<TrapProxy> {
  const hits: string[] = [];
  const trap = await startLoopbackServer((req, res) => {
    hits.push(`${req.method} ${req.url}`);
    res.writeHead(403).end();
  });
  trap.server.on("connect", (req, socket) => {
    hits.push(`CONNECT ${req.url}`);
    socket.on("error", () => undefined);
    socket.end("HTTP/1.1 403 Forbidden\r\n\r\n");
  });
  return { url: trap.url, hits, close: trap.close };
}

const JQ_TASK = "Write the names from data.json to names.txt, one per line.";
const NAMES_JSON = '[{"name":"ada"},{"name":"grace"}]\n';

/** Runs `run` once, when a test first asks, and gives every later asker the same result. */
function once<T>(run: () => Promise<T>): () => Promise<T> {
  let result: Promise<T> | undefined;
  return () => {
    result ??= run();
    return result;
  };
}

export type AgentCliTrials<
  Reply,
  Request extends WireRequest,
  Server extends WireServer<Request>,
> = ReturnType<typeof useAgentCliTrials<Reply, Request, Server>>;

/**
 * The trials of one agent CLI for a test file: a temp dir with the guidance file, the trap proxy
 * (started before the file's tests, closed after), the scripted servers closed after each test.
 */
export function useAgentCliTrials<Reply, Request extends WireRequest, Server extends WireServer<Request>>(
  wire: AgentCliWire<Reply, Request, Server>,
) {
  const dir = makeTempDir(`${wire.agent}-test-`);
  const guidanceMarker = `GUIDANCE-MARKER-${wire.agent}: prefer jq -r for raw strings.`;
  const guidanceFile = path.join(dir, "AGENTS.md");
  writeFileSync(guidanceFile, `# Tools\n\n${guidanceMarker}\n`);
  let trapProxy: TrapProxy | undefined;
  const cleanups: (() => Promise<void>)[] = [];

  beforeAll(async () => {
    trapProxy = await startTrapProxy();
  });
  afterAll(async () => {
    await Promise.all(cleanups.splice(0).map((cleanup) => cleanup()));
    await trapProxy?.close();
  });
  afterEach(async () => {
    await Promise.all(cleanups.splice(0).map((cleanup) => cleanup()));
  });

  function trap(): TrapProxy {
    if (!trapProxy) throw new Error("the trap proxy starts before the file's tests: use it inside a test");
    return trapProxy;
  }

  /** Environment for the tool under test (and so the agent's commands): outbound HTTP(S) goes to the trap. */
  function trapEnv(): Record<string, string> {
    const { url } = trap();
    return {
      HTTPS_PROXY: url,
      HTTP_PROXY: url,
      https_proxy: url,
      http_proxy: url,
      NO_PROXY: "127.0.0.1,localhost",
      no_proxy: "127.0.0.1,localhost",
    };
  }

  /** The jq task with the guidance in the work dir; gates: the answer, and none of the CLI's own files. */
  function jqScenario(overrides: Partial<Scenario> = {}): Scenario {
    return makeScenario({
      id: `${wire.agent}-jq`,
      task: JQ_TASK,
      files: { "data.json": NAMES_JSON },
      guidance: { file: guidanceFile, mode: "workdir" },
      target: { binary: "jq", env: trapEnv() },
      evaluation: {
        gates: [
          { type: "file_contains", path: "names.txt", substring: "ada\ngrace", weight: 1 },
          { type: "command_succeeds", command: wire.ownFilesAbsent, weight: 1 },
        ],
      },
      ...overrides,
    });
  }

  /** One trial of the CLI against a fresh scripted server answering with `respond`. */
  async function runTrial(
    scenario: Scenario,
    respond: (request: Request) => Reply | Promise<Reply>,
    options: AgentCliTrialOptions = {},
  ): Promise<AgentCliTrial<Server>> {
    const server = await wire.startServer(respond);
    cleanups.push(() => server.close());
    const outDir = options.outDir ?? (await mkdtemp(path.join(dir, "out-")));
    const runOptions = defaultRunOptions({
      outDir,
      agent: wire.agent,
      model: options.model ?? wire.model,
      maxTurns: options.maxTurns ?? 10,
      trialTimeoutMs: options.trialTimeoutMs ?? 90_000,
      commandTimeoutMs: options.commandTimeoutMs ?? 30_000,
      sandbox: options.sandbox ?? "local",
    });
    const { output, events, eventsText } = await runSingleTrial(
      scenario,
      runOptions,
      wire.createAgent(server, options),
      { canaryKey: wire.canaryKey, ...(options.signal ? { signal: options.signal } : {}) },
    );
    return { output, events, eventsText, server };
  }

  return { wire, dir, guidanceMarker, trap, trapEnv, jqScenario, runTrial, cleanups };
}

/** The files called `name` under `dir`, a few levels down; folders it may not read are passed over. */
function findFiles(dir: string, name: string, depth = 4): string[] {
  let entries: Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  return entries.flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isFile() && entry.name === name) return [full];
    return entry.isDirectory() && depth > 0 ? findFiles(full, name, depth - 1) : [];
  });
}

/** What an agent's honest run adds to the shared script, and what layer 1 must count of it. */
interface HonestRunExtras<Reply> {
  /** Replies after the shared calls, before the final answer. */
  replies: Reply[];
  /** More of the target's settings (global options). */
  target?: Partial<Scenario["target"]>;
  /** More gates (what the extra calls leave behind). */
  gates?: Scenario["evaluation"]["gates"];
  /** The target's invocations the extra calls make, the failed ones, and the pattern's misses. */
  invocations: number;
  errors: number;
  misses: string[];
}

export interface AgentCliContract<Reply, Request extends WireRequest, Server extends WireServer<Request>> {
  /** What the CLI's shell shows in `env`: the proxy's placeholder key, the CLI's own settings. */
  envShows: (string | RegExp)[];
  /** Whether a request count is the script's exactly (no title, warm-up or retry requests). */
  exactRequests: boolean;
  honest: HonestRunExtras<Reply>;
  /** A shell call still running when the trial ends (Codex: asked to wait past its yield time). */
  longShell?(command: string): Reply;
  /** Whether the CLI's stream shows a call while it runs (OpenCode shows one once it has finished). */
  showsRunningCall: boolean;
  apiError: {
    reply: Reply;
    /** Said in the trial's end. */
    says: string;
    options?: AgentCliTrialOptions;
    checks?(trial: AgentCliTrial<Server>): void;
  };
  turnLimit?: {
    /** Default: four shell calls `echo one`… with no usage. */
    replies?: Reply[];
    checks?(trial: AgentCliTrial<Server>): void;
  };
}

/** The shell calls of the honest run that every CLI makes, by sandbox (bwrap's show where they ran). */
function sharedHonestCalls(sandbox: AgentCliSandbox, trapUrl: string): string[] {
  return [
    sandbox === "bwrap"
      ? "pwd; echo $HOME; cat /data/extra.txt; jq -r '.[].name' data.json > names.txt"
      : "jq -r '.[].name' data.json > names.txt",
    "env",
    // The network is off in bwrap: the host's loopback (the trap listens there) is out of reach.
    ...(sandbox === "bwrap" ? [`curl -s -m 5 -o /dev/null -w 'http %{http_code}' ${trapUrl}/ || true`] : []),
    "jq . missing.json",
    "jq --version",
    "jq -r '.[0].name' data.json && jq -r '.[1].name' data.json",
    "jq -r '.[0].name' data.json; jq -r .broken[ data.json",
  ];
}

/** The shell's exit codes for sharedHonestCalls. */
const SHARED_HONEST_EXITS = { local: [0, 0, 2, 0, 0, 3], bwrap: [0, 0, 0, 2, 0, 0, 3] } as const;

/**
 * The behaviours every agent CLI shares, run against its wire. Returns the honest runs (one per
 * sandbox, run once, however many tests read them) for the agent's own assertions on them.
 */
export function describeAgentCliContract<
  Reply,
  Request extends WireRequest,
  Server extends WireServer<Request>,
>(
  trials: AgentCliTrials<Reply, Request, Server>,
  contract: AgentCliContract<Reply, Request, Server>,
): { honestRun(sandbox: AgentCliSandbox): Promise<AgentCliTrial<Server>> } {
  const { wire } = trials;
  const honestRuns = {
    local: once(() => runHonest("local")),
    bwrap: once(() => runHonest("bwrap")),
  };

  /**
   * An honest agent's run: the calls layer 1 must count exactly (a pattern that misses some), the
   * env the CLI's shell sees, and, in bwrap, where it ran. A setup leaves agent configuration the
   * scenario does not declare, which must be gone before the CLI starts.
   */
  function runHonest(sandbox: AgentCliSandbox): Promise<AgentCliTrial<Server>> {
    const calls = sharedHonestCalls(sandbox, trials.trap().url);
    const scenario = trials.jqScenario({
      files: {
        "data.json": NAMES_JSON,
        ...(sandbox === "bwrap" ? { "/data/extra.txt": "absolute\n" } : {}),
      },
      setup: ["mkdir -p .claude .codex && printf '{}' > .mcp.json"],
      target: {
        binary: "jq",
        commandPattern: "jq\\s+-r\\s+(\\S+)",
        env: trials.trapEnv(),
        ...contract.honest.target,
      },
      evaluation: {
        gates: [
          { type: "file_contains", path: "names.txt", substring: "ada\ngrace", weight: 1 },
          { type: "command_succeeds", command: `${wire.ownFilesAbsent} && test ! -e .mcp.json`, weight: 1 },
          ...(contract.honest.gates ?? []),
        ],
      },
    });
    return trials.runTrial(
      scenario,
      wire.script([...calls.map((call) => wire.shell(call)), ...contract.honest.replies, wire.text("Done.")]),
      // Room for every call of the script: the turn limit is another test's.
      { sandbox, maxTurns: 30, trialTimeoutMs: HONEST_TRIAL_TIMEOUT_MS },
    );
  }

  describe.each(AGENT_CLI_SANDBOXES)(`${wire.agent}: one honest run in the %s sandbox`, (sandbox) => {
    const run = honestRuns[sandbox];
    const replies = sharedHonestCalls(sandbox, "").length + contract.honest.replies.length + 1;

    it(
      "ends by itself and passes its gates: the answer written, none of the CLI's own files left",
      async () => {
        const trial = await run();
        expect(eventsOf(trial.events, "trial_end")[0]).toMatchObject({ reason: "natural_stop", error: null });
        expect(trial.output.report.gates.map((gate) => [gate.gate_type, gate.message, gate.passed])).toEqual(
          trial.output.report.gates.map((gate) => [gate.gate_type, gate.message, true]),
        );
        expect(trial.output.report.outcome).toBe("pass");
      },
      HONEST_RUN_TEST_TIMEOUT_MS,
    );

    it(
      "removes the agent configuration the setup left and the scenario does not declare, and says so",
      async () => {
        const trial = await run();
        expect(eventsOf(trial.events, "agent_output").map((e) => e.text)).toContainEqual(
          expect.stringContaining(
            "removed the work dir's agent configuration that the scenario does not declare (.codex, .claude, .mcp.json)",
          ),
        );
      },
      HONEST_RUN_TEST_TIMEOUT_MS,
    );

    it(
      "records the shell calls in order, with the exit codes the shell gave",
      async () => {
        const trial = await run();
        const shellCalls = eventsOf(trial.events, "tool_call").filter((call) => call.tool === undefined);
        const shared = sharedHonestCalls(sandbox, trials.trap().url);
        expect(shellCalls.slice(0, shared.length).map((call) => call.command)).toEqual(shared);
        const results = eventsOf(trial.events, "tool_result");
        const byCall = new Map(results.map((result) => [result.call_id, result]));
        expect(shellCalls.slice(0, shared.length).map((call) => byCall.get(call.call_id)?.exit_code)).toEqual(
          [...SHARED_HONEST_EXITS[sandbox]],
        );
      },
      HONEST_RUN_TEST_TIMEOUT_MS,
    );

    it(
      "gives exact invocation counts and no forged flag",
      async () => {
        const trial = await run();
        const report = trial.output.report;
        const invocations = 7 + contract.honest.invocations;
        const counted = eventsOf(trial.events, "target_invocation").map((i) => [
          i.argv.join(" "),
          i.exit_code,
        ]);
        expect(counted, JSON.stringify(counted)).toHaveLength(invocations);
        expect(report.invocation_source).toBe("shim");
        expect(report.interaction).toMatchObject({
          total_commands: invocations,
          error_count: 2 + contract.honest.errors,
        });
        expect(report.shim_disagreements).toBeUndefined();
        // The pattern misses these: counted all the same, and reported.
        expect(report.command_pattern_misses).toEqual([
          "jq . missing.json",
          "jq --version",
          ...contract.honest.misses,
        ]);
      },
      HONEST_RUN_TEST_TIMEOUT_MS,
    );

    it(
      "keeps the real key out of the CLI, its shell and the transcript; only the API gets it; nothing else is reached",
      async () => {
        const trial = await run();
        const env = eventsOf(trial.events, "tool_result").find((result) => result.stdout.includes("PATH="));
        for (const shown of contract.envShows) expect(env?.stdout).toMatch(shown);
        expect(env?.stdout).not.toContain(wire.canaryKey);
        expect(trial.eventsText).not.toContain(wire.canaryKey);
        expect(trial.eventsText).not.toContain("[REDACTED]");
        if (contract.exactRequests) expect(trial.server.requests).toHaveLength(replies);
        else expect(trial.server.requests.length).toBeGreaterThanOrEqual(replies);
        for (const request of trial.server.requests) {
          expect(wire.keyOf(request)).toBe(wire.canaryKey);
          expect(JSON.stringify(request.headers)).not.toContain(PLACEHOLDER_API_KEY);
        }
        expect(trials.trap().hits).toEqual([]);
      },
      HONEST_RUN_TEST_TIMEOUT_MS,
    );

    it(
      "puts the guidance file's text and the task before the model",
      async () => {
        const trial = await run();
        const first = JSON.stringify(trial.server.requests.find((request) => wire.isMainLoop(request)));
        expect(first).toContain(trials.guidanceMarker);
        expect(first).toContain(JQ_TASK);
      },
      HONEST_RUN_TEST_TIMEOUT_MS,
    );

    it.runIf(sandbox === "bwrap")(
      "runs inside bwrap: /home/eval as the work dir and home, absolute files in place, the network off, the shim inside",
      async () => {
        const trial = await run();
        const results = eventsOf(trial.events, "tool_result");
        expect(results[0]!.stdout.trimEnd()).toBe("/home/eval\n/home/eval\nabsolute");
        expect(results[2]!.stdout).toBe("http 000");
        const invocations = eventsOf(trial.events, "target_invocation");
        expect(invocations[0]!.argv).toEqual(["jq", "-r", ".[].name", "data.json"]);
        expect(new Set(invocations.map((i) => i.cwd))).toEqual(new Set(["/home/eval"]));
      },
      HONEST_RUN_TEST_TIMEOUT_MS,
    );
  });

  describe(`${wire.agent}: how a run ends`, () => {
    it(
      "stops at the turn limit",
      async () => {
        const replies =
          contract.turnLimit?.replies ?? ["one", "two", "three", "four"].map((n) => wire.shell(`echo ${n}`));
        const trial = await trials.runTrial(
          trials.jqScenario({ evaluation: { gates: [] } }),
          wire.script(replies),
          {
            maxTurns: 2,
          },
        );
        expect(eventsOf(trial.events, "trial_end")[0]!.reason).toBe("turn_limit");
        expect(eventsOf(trial.events, "model_response")).toHaveLength(2);
        expect(eventsOf(trial.events, "tool_call").map((c) => c.command)).toEqual(["echo one", "echo two"]);
        expect(trial.output.report.interaction.completed).toBe(false);
        contract.turnLimit?.checks?.(trial);
      },
      RUN_END_TEST_TIMEOUT_MS,
    );

    it(
      "reports an API error it gave up on as an infrastructure error, not a model turn",
      async () => {
        const trial = await trials.runTrial(
          trials.jqScenario({ evaluation: { gates: [] } }),
          (request) => (wire.isMainLoop(request) ? contract.apiError.reply : wire.text("ok")),
          contract.apiError.options,
        );
        const end = eventsOf(trial.events, "trial_end")[0]!;
        expect(end.reason).toBe("infra_error");
        expect(end.error).toContain(contract.apiError.says);
        expect(end.error).not.toContain(wire.canaryKey);
        expect(eventsOf(trial.events, "model_response")).toHaveLength(0);
        expect(eventsOf(trial.events, "tool_call")).toHaveLength(0);
        expect(trial.output.report.outcome).toBe("error");
        contract.apiError.checks?.(trial);
      },
      RUN_END_TEST_TIMEOUT_MS,
    );

    it(
      "kills the CLI's processes, its shell's children included, when the trial times out",
      async () => {
        // Unique per test process: the check looks for the marker machine-wide.
        const marker = `sleep 47.${process.pid}`;
        const command = `${marker}; echo never`;
        // Long enough for the CLI to start and make its call on a busy machine (6 s was not; 20 s was
        // not for Claude Code at a load of 13 on 2 cores, 30 s not for Gemini CLI at a load of 20).
        const scenario = trials.jqScenario({ agent: { timeoutMs: 45_000 }, evaluation: { gates: [] } });
        const started = Date.now();
        // The call outlives the trial (the CLI's own limit on a call is the harness's command
        // timeout), and is asked again if the CLI hands it back early (Codex does at its yield cap).
        const long = contract.longShell?.(command) ?? wire.shell(command);
        const trial = await trials.runTrial(scenario, wire.script([long, long, long]), {
          commandTimeoutMs: 120_000,
        });
        expect(eventsOf(trial.events, "trial_end")[0]!.reason).toBe("timeout");
        expect(Date.now() - started).toBeLessThan(90_000);
        if (contract.showsRunningCall) {
          const commands = eventsOf(trial.events, "tool_call").map((c) => c.command);
          expect(commands.length).toBeGreaterThan(0);
          expect(new Set(commands)).toEqual(new Set([command]));
        }
        expect(findLiveProcesses(marker)).toEqual([]);
      },
      RUN_END_TEST_TIMEOUT_MS,
    );

    it(
      "ends as cancelled, its processes killed, when the run is interrupted during a call",
      async () => {
        const marker = `sleep 48.${process.pid}`;
        const command = `${marker}; echo never`;
        const controller = new AbortController();
        const outDir = await mkdtemp(path.join(trials.dir, "out-"));
        const trialDone = trials.runTrial(
          trials.jqScenario({ evaluation: { gates: [] } }),
          wire.script([contract.longShell?.(command) ?? wire.shell(command)]),
          // Its start may take most of a minute on a loaded machine: the call must run before the trial's end.
          { signal: controller.signal, trialTimeoutMs: HONEST_TRIAL_TIMEOUT_MS, outDir },
        );
        // Interrupt once the call runs and, for a CLI that shows it, its tool_call is in the events
        // (a condition, not a guess at how long start-up takes: the process can start before the
        // CLI prints that it did).
        let ended = false;
        trialDone
          .finally(() => {
            ended = true;
          })
          .catch(() => undefined);
        const logged = () =>
          !contract.showsRunningCall ||
          findFiles(outDir, "events.jsonl").some((file) =>
            readFileSync(file, "utf8")
              .split("\n")
              .some((line) => line.includes('"type":"tool_call"') && line.includes(marker)),
          );
        while (!ended && (findLiveProcesses(marker).length === 0 || !logged())) {
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        controller.abort("cancelled");
        const trial = await trialDone;
        expect(eventsOf(trial.events, "trial_end")[0]!.reason).toBe("cancelled");
        expect(trial.output.report.outcome).toBe("skipped");
        if (contract.showsRunningCall) {
          expect(eventsOf(trial.events, "tool_call").map((c) => c.command)).toEqual([command]);
        }
        expect(findLiveProcesses(marker)).toEqual([]);
      },
      RUN_END_TEST_TIMEOUT_MS,
    );
  });

  return { honestRun: (sandbox) => honestRuns[sandbox]() };
}

/** How a CLI's process ended, as its stream mapper is told. */
interface CliExit {
  exit_code: number;
  stderr: string;
  timed_out: boolean;
}

/** A stream mapper fed `lines` (objects as JSON, strings as they are) and finished with `exit`. */
export type MapLines = (lines: unknown[], exit: CliExit) => { events: EventInput[]; outcome: AgentOutcome };

/**
 * What every agent CLI's stream mapper does with a stream that went wrong, run against one mapper:
 * `crashError(stderr)` is its outcome's error for a CLI that exited with code 2 without its end.
 */
export function describeStreamMapperContract(
  agent: AgentName,
  mapLines: MapLines,
  crashError: (stderr: string) => string,
): void {
  describe(`${agent}'s stream mapper, as every agent CLI's`, () => {
    it("keeps a line that is not JSON as it came, and calls an exit without the run's end a crash, quoting stderr", () => {
      const crashed = mapLines(["not json at all"], {
        exit_code: 2,
        stderr: "Error: bad flag",
        timed_out: false,
      });
      expect(crashed.outcome).toEqual({
        reason: "agent_crash",
        error: crashError("Error: bad flag"),
        turns: 0,
      });
      expect(crashed.events).toEqual([{ type: "agent_output", text: "not json at all" }]);
    });

    it("ends as a timeout when the CLI was timed out", () => {
      expect(mapLines([], { exit_code: 124, stderr: "", timed_out: true }).outcome.reason).toBe("timeout");
    });
  });
}
