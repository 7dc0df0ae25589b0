/**
 * The action's one port for running a program to its end: npm installing Claude Code
 * (agent-cli-install.ts) and the commands that make bwrap work on the runner (sandbox-setup.ts).
 * The action's adapter goes through sandbox/exec's process runners; tests pass a fake.
 */
import { describeError } from "../errors.js";
import { runProcess } from "../sandbox/exec.js";

interface ProgramRequest {
  file: string;
  args: string[];
  /** The program's complete environment: never merged with the action's (which holds its secrets). */
  env: Record<string, string>;
  stdin?: string;
  timeoutMs: number;
}

export interface ProgramOutcome {
  /** The program's exit code; 124 when it timed out, 127 when it could not start (stderr says why). */
  exitCode: number;
  stdout: string;
  stderr: string;
}

/** Runs a program to its end; never throws: a program that cannot start is exit 127, as in a shell. */
export type RunProgram = (request: ProgramRequest) => Promise<ProgramOutcome>;

/** Enough for npm's and apt-get's logs; only their ends are reported. */
const OUTPUT_CAP_BYTES = 1024 * 1024;

/** The action's: the programs run in "/" (none needs a folder; npm ci's project is its --prefix, never the workspace). */
export function createProgramRunner(): RunProgram {
  return async ({ file, args, env, stdin, timeoutMs }) => {
    try {
      const result = await runProcess({
        file,
        args,
        cwd: "/",
        env,
        timeoutMs,
        outputCapBytes: OUTPUT_CAP_BYTES,
        ...(stdin !== undefined ? { stdin } : {}),
      });
      return { exitCode: result.exit_code, stdout: result.stdout, stderr: result.stderr };
    } catch (error) {
      // A missing npm or sudo: the caller's failure path says so (a ConfigError, or the setup's warning).
      return { exitCode: 127, stdout: "", stderr: describeError(error) };
    }
  };
}
