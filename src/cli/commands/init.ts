import path from "node:path";
import { scaffoldScenarios } from "../../init/init.js";
import { parseCommandArgs, readString } from "../args.js";
import { type CliCommand, type CliIo, displayPath, EXIT } from "../command.js";

const INIT_HELP = `Usage: llm-tool-test init BINARY [--dir DIR] [--force]

Writes a starter suite for BINARY (a command on PATH, or a path to one) into DIR (default ./scenarios):
a scenario whose solution runs \`BINARY --version\` (or --help), a fixture folder, a judge rubric, an
AGENTS.md stub, and .github/workflows/llm-tool-test.yml at the root of the enclosing git repository
(inside DIR when there is none), and adds .llm-tool-test/ (where runs write) to the repository's
.gitignore. Existing files are not overwritten unless --force.
Next: llm-tool-test validate --oracle DIR
`;

async function commandInit(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs("init", argv, {
    dir: { type: "string" },
    binary: { type: "string" },
    force: { type: "boolean" },
    help: { type: "boolean", short: "h" },
    debug: { type: "boolean" },
  });
  const binary = readString(values, "binary") ?? positionals[0];
  if (values.help || !binary) {
    io.stdout.write(INIT_HELP);
    return values.help ? EXIT.ok : EXIT.usage;
  }
  const result = await scaffoldScenarios({
    binary,
    dir: path.resolve(io.cwd, readString(values, "dir") ?? "scenarios"),
    force: Boolean(values.force),
    cwd: io.cwd,
    ...(io.env.PATH ? { searchPath: io.env.PATH } : {}),
  });
  for (const file of result.files) io.stdout.write(`wrote ${displayPath(io.cwd, file)}\n`);
  for (const warning of result.warnings) io.stderr.write(`warning: ${warning}\n`);
  io.stdout.write(`Next: llm-tool-test validate --oracle ${readString(values, "dir") ?? "scenarios"}\n`);
  return EXIT.ok;
}

export const initCommand: CliCommand = {
  name: "init",
  args: "BINARY [--dir DIR]",
  summary: "scaffold a scenario folder (scenario, fixture, rubric, AGENTS.md, workflow)",
  run: commandInit,
};
