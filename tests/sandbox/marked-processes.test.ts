import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { afterEach, describe, expect, it } from "vitest";
import {
  createProcessMarker,
  findMarkedProcesses,
  killMarkedProcesses,
  PROCESS_MARKER_ENV,
} from "../../src/sandbox/marked-processes.js";

const started: ChildProcess[] = [];

function sleeperWith(env: Record<string, string>): number {
  return startSleeper(env).pid as number;
}

function startSleeper(env: Record<string, string>): ChildProcess {
  const child = spawn("sleep", ["30"], {
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", ...env },
    stdio: "ignore",
  });
  started.push(child);
  return child;
}

afterEach(() => {
  for (const child of started.splice(0)) child.kill("SIGKILL");
});

describe.runIf(process.platform === "linux")("marked processes", () => {
  it("finds exactly the processes whose environment holds the whole marker entry", async () => {
    const marker = createProcessMarker();
    const marked = [
      sleeperWith({ [PROCESS_MARKER_ENV]: marker }),
      sleeperWith({ A: "1", [PROCESS_MARKER_ENV]: marker }),
      // A lookalike inside an earlier value does not hide the real entry after it.
      sleeperWith({ AAA: `${PROCESS_MARKER_ENV}=${marker}`, [PROCESS_MARKER_ENV]: marker }),
    ];
    const other = sleeperWith({ [PROCESS_MARKER_ENV]: createProcessMarker() });
    // The marker inside another variable's value, or as a prefix of a longer value, is not the entry.
    const lookalikes = [
      sleeperWith({ NOT_IT: `${PROCESS_MARKER_ENV}=${marker}` }),
      sleeperWith({ [PROCESS_MARKER_ENV]: `${marker}-longer` }),
    ];
    const found = await findMarkedProcesses(marker);
    expect([...found].sort()).toEqual([...marked].sort());
    expect(found).not.toContain(other);
    for (const pid of lookalikes) expect(found).not.toContain(pid);
  });

  it("kills every marked process (more than one sweep reads at once) and leaves the others", async () => {
    const marker = createProcessMarker();
    const marked = Array.from({ length: 40 }, () => startSleeper({ [PROCESS_MARKER_ENV]: marker }));
    const exits = marked.map((child) => once(child, "exit"));
    const other = startSleeper({ [PROCESS_MARKER_ENV]: createProcessMarker() });
    await killMarkedProcesses(marker);
    expect((await Promise.all(exits)).map(([, signal]) => signal)).toEqual(marked.map(() => "SIGKILL"));
    expect(other.exitCode).toBeNull();
    expect(other.signalCode).toBeNull();
  });
});
