/**
 * A hostile agent in the local sandbox leaves survivors (a `setsid` session, a double fork, one
 * started with a cleared environment) that wait for the gates to start, then rewrite the gated file
 * so the trial passes, and forge files in the run's output folder; it also writes into the output
 * folder itself while it runs (issue #25, break 6: survivors flipped a gated file and report.json to
 * `pass`). Every process of the trial must be dead before the gates run, and the output folder must
 * stay out of the agent's reach: the trial fails as its work deserves, nothing is forged.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { Report } from "../../src/results/types.js";
import { findSameUserReason } from "../../src/sandbox/agent-account.js";
import { findCgroupParent } from "../../src/sandbox/trial-cgroup.js";
import { runMain } from "../cli/run-main.js";
import { findLiveProcesses } from "../support/processes.js";
import { makeTempDir } from "../support/temp-dirs.js";

const sameUserReason = await findSameUserReason(process.env.PATH ?? "");
const ownAccounts = sameUserReason === null;
/**
 * As the harness's own user without a writable cgroup, only the marker sweep ends survivors, and a
 * process that clears its environment escapes it (documented in the README): that survivor is
 * left out there. Nor is the output folder out of such an agent's reach: its own writes are tried
 * only where it runs as an account of its own.
 */
const clearedEnvironmentEnds = ownAccounts || (await findCgroupParent()) !== null;
/** In the survivors' script name: they are found by it. */
const TAG = `survivor-${process.pid}-${Math.floor(Math.random() * 1e9)}`;

/** A survivor: says it runs, waits for the gates, then rewrites the gated file and forges outputs. */
function survivorScript(out: string): string {
  return `PATH=/usr/local/bin:/usr/bin:/bin
n=$1
echo $$ > "alive.$n"
until [ -e gates-started ]; do sleep 0.02; done
echo pass > "result.txt.$n" && mv -f "result.txt.$n" result.txt
echo '{"forged":true}' > ${JSON.stringify(path.join(out, "report.json"))}
echo forged > ${JSON.stringify(path.join(out, "forged-by-survivor"))}.$n
touch "survivor-acted.$n"
`;
}

function scenarioYaml(out: string): string {
  const direct = [path.join(out, "forged-by-agent"), path.join(out, "trials", "forged-by-agent")];
  const survivors = clearedEnvironmentEnds ? [1, 2, 3] : [1, 2];
  const directWrites = `  - |
    for target in ${direct.map((file) => JSON.stringify(file)).join(" ")}; do
      if (echo forged > "$target") 2>/dev/null; then echo "WROTE $target"; else echo "REFUSED $target"; fi
    done
`;
  return `name: local_survivors
description: Survivors that rewrite the gated file once the gates start
task: Write fail into result.txt.
files:
  ${TAG}.sh: ${JSON.stringify(survivorScript(out))}
solution:
  - echo fail > result.txt
  - |
    setsid bash ${TAG}.sh 1 >/dev/null 2>&1 </dev/null &
    ( ( bash ${TAG}.sh 2 >/dev/null 2>&1 </dev/null & ) & )
    ${clearedEnvironmentEnds ? `env -i /bin/bash ${TAG}.sh 3 >/dev/null 2>&1 </dev/null &` : ":"}
    until ${survivors.map((n) => `[ -e alive.${n} ]`).join(" && ")}; do sleep 0.02; done
    echo SURVIVORS-STARTED
${ownAccounts ? directWrites : ""}evaluation:
  gates:
    - type: script
      weight: 0
      command: |
        touch gates-started
        for i in $(seq 150); do ls survivor-acted.* >/dev/null 2>&1 && break; sleep 0.02; done
        exit 0
    - type: file_contains
      path: result.txt
      substring: pass
`;
}

describe("survivors of a local-mode agent", () => {
  let out: string;
  let result: Awaited<ReturnType<typeof runMain>>;
  let report: Report;
  let events: string;

  beforeAll(async () => {
    const root = makeTempDir("ltt-local-survivors-");
    mkdirSync(path.join(root, "suite"));
    out = path.join(root, "out");
    writeFileSync(path.join(root, "suite/local-survivors.yaml"), scenarioYaml(out));
    result = await runMain(
      [
        "run",
        path.join(root, "suite"),
        "--agent",
        "oracle",
        "--sandbox",
        "local",
        "--trials",
        "1",
        "--out",
        out,
      ],
      { cwd: root },
    );
    report = JSON.parse(readFileSync(path.join(out, "report.json"), "utf8")) as Report;
    const trial = report.scenarios[0]?.trials[0];
    events = trial?.events_path ? readFileSync(path.join(out, trial.events_path), "utf8") : "";
  }, 120_000);

  it("started the survivors (the attack ran)", () => {
    expect(result.code, result.stderr).toBeLessThanOrEqual(1);
    expect(events).toContain("SURVIVORS-STARTED");
  });

  it("ended them before the gates: the gated file keeps what the agent wrote, and the trial fails", () => {
    const trial = report.scenarios[0]!.trials[0]!;
    expect(trial.sandbox).toBe("local");
    expect(trial.outcome).toBe("fail");
    expect(findLiveProcesses(TAG)).toEqual([]);
  });

  it("left the output folder as the harness wrote it: report.json its own, nothing forged", () => {
    expect(report.run).toBeDefined();
    expect(readFileSync(path.join(out, "report.json"), "utf8")).not.toContain('"forged"');
    expect(readdirSync(out).filter((name) => name.startsWith("forged"))).toEqual([]);
    expect(existsSync(path.join(out, "trials", "forged-by-agent"))).toBe(false);
  });

  it.runIf(ownAccounts)("refused the agent's own writes into the output folder (another user's)", () => {
    expect(events).toContain(`REFUSED ${path.join(out, "forged-by-agent")}`);
    expect(events).toContain(`REFUSED ${path.join(out, "trials", "forged-by-agent")}`);
    expect(events).not.toMatch(/WROTE \//);
  });
});
