/**
 * The shim's record is the measurement, so the environment the agent hands a target call must not
 * reach the bash that records it. In bwrap the broker runs the shim for each call with the agent's
 * environment for the target: a BASH_ENV that redefines `wait` (the shim's exit status), or a PATH
 * whose first `bash` is the agent's (the shim's `#!/usr/bin/env bash`), made a failing call read as
 * a success, or left no record at all while the agent's own program ran beside the real binary.
 * Every call must be recorded with the status the target gave, and the target must still get the
 * agent's environment.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { Report } from "../../src/results/types.js";
import { runOracle } from "../cli/run-main.js";
import { findBwrapProblem } from "../support/processes.js";
import { makeTempDir } from "../support/temp-dirs.js";

/** Fails with its first argument as the status, and says what its environment held. */
const TOOL = `#!/bin/bash
echo "target saw MARK=\${MARK-unset} BASH_ENV=\${BASH_ENV-unset}"
[ "$2" = names ] && echo "target's names:" $(compgen -e) "."
exit "$1"
`;

const BASE_SOLUTION = [
  // A BASH_ENV that makes every `wait` succeed, and announces itself where the shim's variables are
  // (the requester, the agent's own side, sources it too: that is the agent's business).
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell parameter expansion.
  'printf \'wait() { builtin wait "$@"; [ -z "${__ltt_log-}" ] || echo sourced-$((6*7)) >&2; return 0; }\\n\' > evil.sh',
  'MARK=one BASH_ENV="$PWD/evil.sh" fail-tool 3; echo "status after BASH_ENV: $?"',
  // A bash of the agent's first on PATH, for the shim's `#!/usr/bin/env bash`.
  "mkdir -p fake && printf '#!/bin/sh\\necho fake-bash-$((6*7)) >&2\\nexit 0\\n' > fake/bash && chmod +x fake/bash",
  'MARK=two PATH="$PWD/fake:$PATH" fail-tool 4; echo "status after PATH: $?"',
  // Names the broker's server uses for its own variables, and one of the harness's (dropped).
  'env -i MARK=four args=a dir=b shim=c status=d pids=e __ltt_x=f "$(command -v fail-tool)" 6 names',
];

/**
 * A library of the agent's preloaded into every program of the call: it announces itself in the
 * shim (its command line names the shim's folder, and its parent is the broker's server: not the
 * requester, which the agent's shell starts). Built in the sandbox by the system's compiler.
 */
const PRELOAD_SOLUTION = [
  [
    "cat > p.c <<'C'",
    "#include <stdio.h>",
    "#include <string.h>",
    "#include <unistd.h>",
    "static int has(const char *file, const char *text) {",
    '  char b[16384] = {0}; FILE *f = fopen(file, "r"); if (!f) return 0;',
    "  size_t n = fread(b, 1, sizeof b - 1, f); fclose(f);",
    "  for (size_t i = 0; i < n; i++) if (!b[i]) b[i] = ' ';",
    "  return strstr(b, text) != NULL;",
    "}",
    "__attribute__((constructor)) static void mark(void) {",
    '  char parent[64]; snprintf(parent, sizeof parent, "/proc/%d/cmdline", (int)getppid());',
    '  if (has("/proc/self/cmdline", "/run/llm-tool-test/bin/") && has(parent, "llm-tool-test-broker"))',
    '    fprintf(stderr, "preloaded-%d\\n", 6 * 7);',
    "}",
    "C",
    "gcc -shared -fPIC -o p.so p.c",
  ].join("\n"),
  'MARK=three LD_PRELOAD="$PWD/p.so" fail-tool 5; echo "status after LD_PRELOAD: $?"',
];

const withCompiler = existsSync("/usr/bin/gcc");

function writeScenario(dir: string, tool: string, solution: string[]): void {
  mkdirSync(dir, { recursive: true });
  const yaml = [
    "name: environment",
    "description: hands the shim a hostile environment",
    "task: Run the tool.",
    "target:",
    `  binary: ${JSON.stringify(tool)}`,
    "solution:",
    ...solution.map((command) => `  - ${JSON.stringify(command)}`),
    "evaluation:",
    "  gates:",
    "    - type: no_transcript_errors",
  ].join("\n");
  writeFileSync(path.join(dir, "environment.yaml"), `${yaml}\n`);
}

const bwrapProblem = findBwrapProblem();

/** The scenario's solution run by the oracle in `sandbox`: its report and its trial's events. */
async function runEnvironmentScenario(sandbox: string, solution: string[]) {
  const dir = makeTempDir(`ltt-hostile-shim-env-${sandbox}-`);
  mkdirSync(path.join(dir, ".git"));
  const tool = path.join(dir, "bin", "fail-tool");
  mkdirSync(path.dirname(tool));
  writeFileSync(tool, TOOL);
  chmodSync(tool, 0o755);
  writeScenario(path.join(dir, "scenarios"), tool, solution);
  const { result, out, report } = await runOracle(path.join(dir, "scenarios"), { cwd: dir, sandbox });
  expect(result.stderr).not.toContain("unexpected error");
  const events = readFileSync(path.join(out, "trials", "environment", "trial-1", "events.jsonl"), "utf8");
  return { report, events };
}

describe.skipIf(bwrapProblem !== null)("the agent's environment and the shim (bwrap)", () => {
  let report: Report;
  let events: string;

  beforeAll(async () => {
    ({ report, events } = await runEnvironmentScenario("bwrap", [
      ...BASE_SOLUTION,
      ...(withCompiler ? PRELOAD_SOLUTION : []),
    ]));
  }, 120_000);

  it("records both calls with the status the target gave, and the caller gets it", () => {
    const trial = report.scenarios[0]!.trials[0]!;
    expect(trial.invocation_source).toBe("shim");
    const calls = withCompiler ? 4 : 3;
    expect(trial.interaction.total_commands).toBe(calls);
    expect(trial.interaction.error_count).toBe(calls);
    expect(events).toContain("status after BASH_ENV: 3");
    expect(events).toContain("status after PATH: 4");
    if (withCompiler) expect(events).toContain("status after LD_PRELOAD: 5");
  });

  it("runs none of the agent's code in the recording shim", () => {
    // The commands name neither: only code that ran prints them.
    expect(events).not.toContain("sourced-42");
    expect(events).not.toContain("fake-bash-42");
    expect(events).not.toContain("preloaded-42");
  });

  it("still hands the target the agent's environment", () => {
    expect(events).toContain(`target saw MARK=one BASH_ENV=`);
    expect(events).toMatch(/target saw MARK=one BASH_ENV=\S*evil\.sh/);
    expect(events).toContain("target saw MARK=two");
    if (withCompiler) expect(events).toContain("target saw MARK=three");
  });

  it("hands the target the agent's names and nothing of the broker's (bash adds PWD and SHLVL)", () => {
    const names = /target's names: ([^.]*) \./.exec(events)?.[1]?.split(" ").sort();
    expect(names).toEqual(["MARK", "PWD", "SHLVL", "args", "dir", "pids", "shim", "status"]);
  });
});

/**
 * Local mode runs the shim directly in the agent's process tree, with the agent's environment: a
 * `bash` of the agent's first on PATH was the one `#!/usr/bin/env bash` ran, so the call went
 * unrecorded and read as a success; a BASH_ENV of the agent's redefined the shim's `wait`. The shim
 * runs by the bash the harness found at setup, in privileged mode (`-p`: no BASH_ENV, no imported
 * functions), and the target still gets the agent's environment.
 */
describe("the agent's environment and the shim (local)", () => {
  let report: Report;
  let events: string;

  beforeAll(async () => {
    ({ report, events } = await runEnvironmentScenario("local", BASE_SOLUTION));
  }, 120_000);

  it("records both calls with the status the target gave, and the caller gets it", () => {
    const trial = report.scenarios[0]!.trials[0]!;
    expect(trial.invocation_source).toBe("shim");
    // The two attacks' calls and the clean-environment call of the bwrap part's solution.
    expect(trial.interaction.total_commands).toBe(3);
    expect(trial.interaction.error_count).toBe(3);
    expect(events).toContain("status after BASH_ENV: 3");
    expect(events).toContain("status after PATH: 4");
  });

  it("runs none of the agent's code in the recording shim", () => {
    // The commands name neither: only code that ran prints them.
    expect(events).not.toContain("sourced-42");
    expect(events).not.toContain("fake-bash-42");
  });

  it("still hands the target the agent's environment", () => {
    expect(events).toMatch(/target saw MARK=one BASH_ENV=\S*evil\.sh/);
    expect(events).toContain("target saw MARK=two");
  });
});
