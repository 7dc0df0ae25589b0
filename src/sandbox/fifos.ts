/**
 * The harness's FIFOs (the shim's record channel, the broker's call channel, the agent shell's
 * pipes): made with the system's mkfifo, read through a descriptor opened read-write.
 */
import { constants, openSync } from "node:fs";
import { InfraError } from "../errors.js";
import { runProcess } from "./exec.js";

/** Makes `files` as FIFOs with `mode` (octal, as mkfifo takes it); `what` names them in the error. */
export async function makeFifos(
  files: readonly string[],
  settings: { mode: string; cwd: string; searchPath: string; what: string },
): Promise<void> {
  // Node cannot make a FIFO; mkfifo is in every POSIX system's base tools.
  const made = await runProcess({
    file: "mkfifo",
    args: ["-m", settings.mode, ...files],
    cwd: settings.cwd,
    env: { PATH: settings.searchPath },
    timeoutMs: 10_000,
    outputCapBytes: 4096,
  });
  if (made.exit_code !== 0) {
    throw new InfraError(`could not make ${settings.what}: ${made.stderr.trim()}`);
  }
}

/** Read and write, non-blocking: opening never blocks, and a writer never meets a FIFO without a reader. */
export function openFifo(file: string): number {
  return openSync(file, constants.O_RDWR | constants.O_NONBLOCK);
}
