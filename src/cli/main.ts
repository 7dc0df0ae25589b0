/** The CLI's entry: finds the command, runs it, and turns errors into a message and an exit status. */
import { suggestKey } from "../did-you-mean.js";
import { describeError, isConfigError } from "../errors.js";
import type { WithdrawnEnvironment } from "../sandbox/withdraw-environment.js";
import { HARNESS_VERSION } from "../version.js";
import { type CliCommand, type CliIo, EXIT } from "./command.js";
import { compareCommand } from "./commands/compare.js";
import { initCommand } from "./commands/init.js";
import { listCommand } from "./commands/list.js";
import { mergeCommand } from "./commands/merge.js";
import { planCommand } from "./commands/plan.js";
import { reportCommand } from "./commands/report.js";
import { runCommand } from "./commands/run.js";
import { validateCommand } from "./commands/validate.js";

export { type CliIo, EXIT } from "./command.js";

/** In the order `--help` lists them. */
const COMMANDS: readonly CliCommand[] = [
  runCommand,
  validateCommand,
  listCommand,
  reportCommand,
  compareCommand,
  mergeCommand,
  planCommand,
  initCommand,
];

const HELP = `llm-tool-test ${HARNESS_VERSION} — measure how well LLM agents use a command-line tool

Usage:
${COMMANDS.map((c) => `  llm-tool-test ${`${c.name} ${c.args}`.padEnd(19)}   ${c.summary}\n`).join("")}
Run 'llm-tool-test <command> --help' for a command's options.
Exit status: 0 all passed, 1 a scenario failed, 2 configuration or usage error, 3 infrastructure errors left the result incomplete.
`;

/**
 * The process's own streams and directory, with the environment the entry withdrew from
 * `process.env` (see sandbox/withdraw-environment.ts); a block that could not be cleared is
 * warned about by the commands that run agents.
 */
export function createProcessIo(withdrawn: WithdrawnEnvironment): CliIo {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    env: withdrawn.env,
    cwd: process.cwd(),
    ...(withdrawn.warning !== null ? { environmentWarning: withdrawn.warning } : {}),
  };
}

/** For library callers: this process as it is (nothing withdrawn). */
const defaultIo = (): CliIo => createProcessIo({ env: process.env, warning: null });

/** The CLI's entry: returns the exit status; never throws. */
export async function main(argv: string[], io: CliIo = defaultIo()): Promise<number> {
  const debug = argv.includes("--debug");
  const [name, ...rest] = argv;
  if (!name || name === "--help" || name === "-h" || name === "help") {
    io.stdout.write(HELP);
    return name ? EXIT.ok : EXIT.usage;
  }
  if (name === "--version" || name === "-v") {
    io.stdout.write(`${HARNESS_VERSION}\n`);
    return EXIT.ok;
  }
  const command = COMMANDS.find((c) => c.name === name);
  if (!command) {
    const suggestion = suggestKey(
      name,
      COMMANDS.map((c) => c.name),
    );
    io.stderr.write(
      `llm-tool-test: unknown command "${name}"${suggestion ? ` (did you mean "${suggestion}"?)` : ""}. Run 'llm-tool-test --help'.\n`,
    );
    return EXIT.usage;
  }
  try {
    return await command.run(rest, io);
  } catch (error) {
    if (isConfigError(error)) {
      io.stderr.write(`llm-tool-test: ${error.message}\n`);
      if (debug && error.stack) io.stderr.write(`${error.stack}\n`);
      return EXIT.usage;
    }
    io.stderr.write(`llm-tool-test: unexpected error: ${describeError(error)}\n`);
    io.stderr.write(
      debug && error instanceof Error && error.stack
        ? `${error.stack}\n`
        : "Run again with --debug for the stack trace, and please report it.\n",
    );
    return EXIT.incomplete;
  }
}
