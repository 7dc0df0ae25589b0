/**
 * The counterpart of forged-shim-log.test.ts: honest agents must get exact invocation counts and
 * no "forged" flag. Each agent (the built-in one against a loopback model server, and the command
 * agent running a real script) makes the same many calls of a real tool with a global option that
 * takes a value (`-f FILE`, as hledger has): `--help` and `--version`, which `command_pattern`
 * misses, `--file=`, a pipe, a loop, a `cd` first, a failing call that is not the last command.
 * Through the real CLI, in the local sandbox and in bwrap, two trials at once. (Claude Code's honest
 * run is in tests/agents/claude-code.test.ts.)
 */
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Report } from "../../src/results/types.js";
import { runMain } from "../cli/run-main.js";
import {
  bashCall,
  finalText,
  type ModelServer,
  scriptByTurn,
  startModelServer,
} from "../support/model-server.js";
import { findBwrapProblem } from "../support/processes.js";
import { reportSchemaErrors } from "../support/report-schema.js";
import { makeTempDir } from "../support/temp-dirs.js";

/** A tool whose global option `-f`/`--file` takes a value before the subcommand. */
const LEDGER_TOOL = `#!/usr/bin/env bash
file=""
while [ $# -gt 0 ]; do
  case "$1" in
    -f|--file) file="$2"; shift 2 ;;
    --file=*) file="\${1#--file=}"; shift ;;
    -h|--help) echo "usage: ledger-tool [-f FILE] COMMAND [ARGS]"; echo "commands: balance, register"; exit 0 ;;
    --version) echo "ledger-tool 1.0"; exit 0 ;;
    -*) echo "unknown option $1" >&2; exit 64 ;;
    *) break ;;
  esac
done
[ -r "$file" ] || { echo "cannot read journal '$file'" >&2; exit 3; }
command="$1"; shift
case "$command" in
  balance) echo "balance of $file: 42" ;;
  register) echo "register of $file $*" ;;
  *) echo "unknown command '$command'" >&2; exit 2 ;;
esac
`;

/** One bash call each, as an honest agent would type them. */
const CALLS = [
  "ledger-tool --help",
  "ledger-tool -f main.journal balance",
  "ledger-tool --file main.journal register food",
  "ledger-tool -f main.journal balanse",
  "ledger-tool -f main.journal balance",
  "ledger-tool --file=main.journal balance",
  "ledger-tool -f main.journal balance | head -1",
  // Back where it was: the same in one shell per call and in one shell for the whole trial.
  "mkdir -p sub && cd sub && ledger-tool -f ../main.journal register; cd ..",
  "for month in 1 2; do ledger-tool -f main.journal balance; done",
  "ledger-tool --version",
  'ledger-tool -f main.journal bad; echo "status $?"',
  "ledger-tool -f main.journal balance > balance.txt",
];

/** What the calls above are, invocation by invocation (the loop runs the tool twice). */
const EXPECTED = {
  total_commands: 13,
  error_count: 2,
  help_invocations: 1,
  // --help and --version name no subcommand; `-f`'s value is never one.
  by_subcommand: { "(none)": 2, balance: 7, register: 2, balanse: 1, bad: 1 },
  // The pattern wants `-f FILE` before the subcommand.
  misses: [
    "ledger-tool --help",
    "ledger-tool --file main.journal register food",
    "ledger-tool --file=main.journal balance",
    "ledger-tool --version",
  ],
};

const TRIALS = 2;
const bwrapProblem = findBwrapProblem();

let dir: string;
let tool: string;
let server: ModelServer;

beforeAll(async () => {
  dir = makeTempDir("ltt-honest-");
  // A repository, so the scenario may name a binary beside its folder (target.binary's rule).
  mkdirSync(path.join(dir, ".git"));
  tool = path.join(dir, "bin", "ledger-tool");
  mkdirSync(path.dirname(tool));
  writeFileSync(tool, LEDGER_TOOL);
  chmodSync(tool, 0o755);
  const agent = path.join(dir, "bin", "honest-agent");
  writeFileSync(agent, `#!/usr/bin/env bash\n${CALLS.join("\n")}\necho done\n`);
  chmodSync(agent, 0o755);
  const scenarios = path.join(dir, "scenarios");
  mkdirSync(scenarios);
  // The same task twice: the subcommand from the arguments alone, and with a pattern that misses calls.
  for (const [name, pattern, options] of [
    ["ledger", null, "[-f, --file]"],
    ["ledger-pattern", "ledger-tool\\s+-f\\s+\\S+\\s+(\\S+)", "[-f, --file]"],
    // What a new user writes first: the report says which options seem to take a value.
    ["ledger-unlisted", null, null],
  ] as const) {
    const yaml = [
      `name: ${name}`,
      "description: many honest calls of a tool with a global option taking a value",
      "task: Write the balance of main.journal to balance.txt.",
      "files:",
      '  main.journal: "2024-01-01 lunch\\n  expenses:food  10\\n  assets:cash\\n"',
      "target:",
      `  binary: ${JSON.stringify(tool)}`,
      ...(pattern ? [`  command_pattern: ${JSON.stringify(pattern)}`] : []),
      ...(options ? [`  global_options: ${options}`] : []),
      "evaluation:",
      "  gates:",
      "    - type: file_contains",
      "      path: balance.txt",
      "      substring: '42'",
    ].join("\n");
    writeFileSync(path.join(scenarios, `${name}.yaml`), `${yaml}\n`);
  }
  server = await startModelServer(scriptByTurn([...CALLS.map((call) => bashCall(call)), finalText("Done.")]));
});

afterAll(async () => {
  await server?.close();
});

async function runAgent(agent: "anthropic" | "command", sandbox: "local" | "bwrap"): Promise<Report> {
  const out = path.join(dir, `out-${agent}-${sandbox}`);
  const agentFlags =
    agent === "anthropic"
      ? ["--agent", "anthropic", "--model", "claude-test-honest", "--base-url", server.url]
      : ["--agent", "command", "--agent-command", path.join(dir, "bin", "honest-agent")];
  const result = await runMain(
    [
      "run",
      path.join(dir, "scenarios"),
      ...agentFlags,
      "--sandbox",
      sandbox,
      "--trials",
      String(TRIALS),
      "-j",
      "4",
      "--out",
      out,
      "-q",
    ],
    { cwd: dir, env: { ANTHROPIC_API_KEY: "sk-ant-canary-honest-5e4d3c2b1a" } },
  );
  expect(result.stderr).not.toContain("unexpected error");
  return JSON.parse(readFileSync(path.join(out, "report.json"), "utf8")) as Report;
}

describe.each([
  { agent: "anthropic", sandbox: "local", skip: false },
  { agent: "anthropic", sandbox: "bwrap", skip: bwrapProblem !== null },
  { agent: "command", sandbox: "local", skip: false },
  { agent: "command", sandbox: "bwrap", skip: bwrapProblem !== null },
] as const)("an honest $agent agent ($sandbox)", ({ agent, sandbox, skip }) => {
  it.skipIf(skip)(
    "gets exact invocation counts, subcommands past -f's value, the pattern's misses reported, no forged flag",
    async () => {
      const report = await runAgent(agent, sandbox);
      expect(reportSchemaErrors(report)).toEqual([]);
      expect(report.scenarios.map((scenario) => [scenario.id, scenario.trials.length])).toEqual([
        ["ledger", TRIALS],
        ["ledger-pattern", TRIALS],
        ["ledger-unlisted", TRIALS],
      ]);
      for (const trial of report.scenarios.flatMap((scenario) => scenario.trials)) {
        expect(trial.outcome, trial.reason ?? "").toBe("pass");
        expect(trial.invocation_source).toBe("shim");
        expect(trial.shim_disagreements).toBeUndefined();
        expect(trial.interaction).toMatchObject({
          total_commands: EXPECTED.total_commands,
          error_count: EXPECTED.error_count,
          help_invocations: EXPECTED.help_invocations,
        });
      }
      // Without the list, -f's value is the "subcommand", and the report says which options to list.
      for (const trial of report.scenarios[2]?.trials ?? []) {
        expect(Object.keys(trial.by_subcommand ?? {})).toEqual([
          "(none)",
          "main.journal",
          "balance",
          "../main.journal",
        ]);
        expect(trial.possible_global_options).toEqual([
          { option: "-f", command: "ledger-tool -f main.journal balance" },
          { option: "--file", command: "ledger-tool --file main.journal register food" },
        ]);
      }
      for (const trial of report.scenarios.slice(0, 2).flatMap((scenario) => scenario.trials)) {
        expect(trial.possible_global_options).toBeUndefined();
        const bySubcommand = Object.fromEntries(
          Object.entries(trial.by_subcommand ?? {}).map(([name, figures]) => [name, figures.total_commands]),
        );
        expect(bySubcommand).toEqual(EXPECTED.by_subcommand);
      }
      for (const trial of report.scenarios[0]?.trials ?? [])
        expect(trial.command_pattern_misses).toBeUndefined();
      for (const trial of report.scenarios[1]?.trials ?? []) {
        expect(trial.command_pattern_misses).toEqual(EXPECTED.misses);
      }
    },
    120_000,
  );
});
