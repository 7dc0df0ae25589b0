/**
 * Local mode with agent accounts (issue #35, item 4): an agent leaves files in the folders every
 * user may write (/tmp, /var/tmp, /dev/shm), readable by all, a folder among them. The next trial
 * (the account's next lease, or another account) must not find them, and none may stay on the host
 * after the run. Only where the agent runs as an account of its own (as root, or with passwordless
 * sudo): as the harness's own user, local mode promises no such thing (the README says so).
 */
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Report } from "../../src/results/types.js";
import { findSameUserReason } from "../../src/sandbox/agent-account.js";
import { runOracle } from "../cli/run-main.js";
import { makeTempDir } from "../support/temp-dirs.js";

const ownAccounts = (await findSameUserReason(process.env.PATH ?? "")) === null;
/** In the names of the agent's files: they are found by it. */
const TAG = `ltt-trial-leftover-${process.pid}-${Math.floor(Math.random() * 1e9)}`;
const folders = ["/tmp", "/var/tmp", "/dev/shm"].filter((folder) => existsSync(folder));

/** Each trial reads what an earlier one left, then leaves its own: a file, and a folder with one. */
function scenarioYaml(): string {
  const probe = `for d in ${folders.join(" ")}; do
  for f in "$d"/${TAG}-*; do
    [ -e "$f" ] && echo "FOUND $f: $(cat "$f"/* "$f" 2>/dev/null)"
  done
  echo "secret of trial $$" > "$d/${TAG}-file-$$" && chmod 644 "$d/${TAG}-file-$$"
  mkdir "$d/${TAG}-dir-$$" && chmod 755 "$d/${TAG}-dir-$$" && echo "secret of trial $$" > "$d/${TAG}-dir-$$/inner"
  ls -d "$d"/${TAG}-file-$$ "$d"/${TAG}-dir-$$ >/dev/null && echo "LEFT $d"
done
`;
  return `name: temp_leftovers
description: An agent that reads what the trial before it left in the shared temp folders, and leaves its own
task: Write done into result.txt.
files:
  probe.sh: ${JSON.stringify(probe)}
solution:
  - bash probe.sh
  - echo done > result.txt
evaluation:
  gates:
    - type: file_contains
      path: result.txt
      substring: done
`;
}

function leftovers(): string[] {
  return folders.flatMap((folder) =>
    readdirSync(folder)
      .filter((name) => name.startsWith(TAG))
      .map((name) => path.join(folder, name)),
  );
}

describe.skipIf(!ownAccounts)("a local-mode trial's files in /tmp, /var/tmp and /dev/shm", () => {
  let events: string[];
  let report: Report;

  beforeAll(async () => {
    const root = makeTempDir("ltt-temp-leftovers-");
    writeFileSync(path.join(root, "temp-leftovers.yaml"), scenarioYaml());
    const run = await runOracle(path.join(root, "temp-leftovers.yaml"), {
      cwd: root,
      sandbox: "local",
      trials: 2,
      concurrency: 1,
    });
    const out = run.out;
    expect(run.result.code, run.result.stderr).toBe(0);
    report = run.report;
    events = (report.scenarios[0]?.trials ?? []).map((trial) =>
      trial.events_path ? readFileSync(path.join(out, trial.events_path), "utf8") : "",
    );
  }, 120_000);

  afterAll(() => {
    // What a failing run left must not outlive the test.
    for (const file of leftovers()) rmSync(file, { recursive: true, force: true });
  });

  it("let each trial write there (the attack ran)", () => {
    expect(events).toHaveLength(2);
    for (const text of events) for (const folder of folders) expect(text).toContain(`LEFT ${folder}`);
  });

  it("gave no trial what the trial before it left", () => {
    for (const text of events) expect(text).not.toContain("FOUND");
  });

  it("left none of the trials' files on the host", () => {
    expect(leftovers()).toEqual([]);
  });
});

/**
 * Two trials at once, on two accounts: each leaves a file readable by all in every shared temp
 * folder, waits until the other has left its own (processes are seen across trials in local mode,
 * so a process named after the step is the signal, through no file system), then tries to read the
 * other's. Neither ends before the other has looked.
 */
function concurrentScenarioYaml(): string {
  const tag = `${TAG}-at-once`;
  const probe = `tag=${tag}; me=$$
count() { pgrep -fc -- "$tag-$1-" || true; }
# Where the command runs, as the kernel says: the work dir, reachable from the trial's root.
echo "CWD $(/bin/pwd -P 2>&1)"
announce() { (exec -a "$tag-$1-$me" sleep 300) & }
for d in ${folders.join(" ")}; do
  echo "secret of trial $me" > "$d/$tag-file-$me" && chmod 644 "$d/$tag-file-$me" && echo "LEFT $d"
done
announce written
waited=0
until [ "$(count written)" -ge 2 ]; do
  waited=$((waited + 1)); [ "$waited" -gt 600 ] && { echo ALONE; break; }; sleep 0.1
done
for d in ${folders.join(" ")}; do
  for f in "$d"/$tag-file-*; do
    [ "$f" = "$d/$tag-file-$me" ] && continue
    [ -e "$f" ] && echo "FOUND $f: $(cat "$f" 2>&1)"
  done
done
echo PROBED
announce probed
# Until the other trial has looked too (or has ended, its written marker gone with it).
waited=0
until [ "$(count probed)" -ge 2 ] || [ "$(count written)" -lt 2 ]; do
  waited=$((waited + 1)); [ "$waited" -gt 600 ] && { echo "NEVER LOOKED"; break; }; sleep 0.1
done
`;
  return `name: temp_at_once
description: Two trials at once, each trying to read the files the other leaves in the shared temp folders
task: Write done into result.txt.
agent:
  command_timeout: 150s
files:
  probe.sh: ${JSON.stringify(probe)}
solution:
  - bash probe.sh
  - echo done > result.txt
evaluation:
  gates:
    - type: file_contains
      path: result.txt
      substring: done
`;
}

describe.skipIf(!ownAccounts)("two local-mode trials at once, on two accounts", () => {
  let events: string[];

  beforeAll(async () => {
    const root = makeTempDir("ltt-temp-at-once-");
    writeFileSync(path.join(root, "temp-at-once.yaml"), concurrentScenarioYaml());
    const { result, out, report } = await runOracle(path.join(root, "temp-at-once.yaml"), {
      cwd: root,
      sandbox: "local",
      trials: 2,
      concurrency: 2,
    });
    expect(result.code, result.stderr).toBe(0);
    events = (report.scenarios[0]?.trials ?? []).map((trial) =>
      trial.events_path ? readFileSync(path.join(out, trial.events_path), "utf8") : "",
    );
  }, 240_000);

  afterAll(() => {
    for (const file of leftovers()) rmSync(file, { recursive: true, force: true });
  });

  it("ran both at once, each leaving a file readable by all in every folder (the attack ran)", () => {
    expect(events).toHaveLength(2);
    for (const text of events) {
      expect(text).toContain("PROBED");
      expect(text).not.toContain("ALONE");
      expect(text).not.toContain("NEVER LOOKED");
      for (const folder of folders) expect(text).toContain(`LEFT ${folder}`);
    }
  });

  it("ran each command in its work dir, as the host names it", () => {
    for (const text of events) {
      const workDir = /"work_dir":"([^"]+)"/.exec(
        text.split("\n").find((line) => line.includes('"prompt"')) ?? "",
      )?.[1];
      expect(workDir).toMatch(/\/work$/);
      // The JSON line escapes the newline.
      expect(text).toContain(`CWD ${workDir}\\n`);
    }
  });

  it("let neither read the other's files while both ran", () => {
    for (const text of events) expect(text).not.toContain("FOUND");
  });

  it("left nothing of either on the host", () => {
    expect(leftovers()).toEqual([]);
  });
});
