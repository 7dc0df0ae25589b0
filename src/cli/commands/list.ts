import path from "node:path";
import { COMMON_OPTIONS, parseCommandArgs } from "../args.js";
import { type CliCommand, type CliIo, EXIT } from "../command.js";
import { describeScenarioCount, FILTER_OPTIONS, loadSelected } from "../scenario-selection.js";

const LIST_HELP = "Usage: llm-tool-test list [paths...] [--tags a,b] [--tier N] [--json]\n";

async function commandList(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs("list", argv, {
    ...COMMON_OPTIONS,
    ...FILTER_OPTIONS,
    json: { type: "boolean" },
  });
  if (values.help) {
    io.stdout.write(LIST_HELP);
    return EXIT.ok;
  }
  const { selected } = await loadSelected(positionals, values, io);
  if (values.json) {
    const rows = selected.map((s) => ({
      id: s.id,
      category: s.category,
      tags: s.tags,
      tier: s.tier,
      variants: s.variants.map((v) => v.name),
      gates: s.evaluation.gates.length,
      judge: Boolean(s.evaluation.judge?.enabled),
      file: path.relative(io.cwd, s.source.file),
    }));
    io.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
    return EXIT.ok;
  }
  for (const s of selected) {
    const extras = [
      `tier ${s.tier}`,
      s.tags.length ? `tags ${s.tags.join(",")}` : "",
      `${s.evaluation.gates.length} gate(s)`,
      s.evaluation.judge?.enabled ? "judge" : "",
      s.variants.length ? `variants ${s.variants.map((v) => v.name).join(",")}` : "",
    ].filter(Boolean);
    io.stdout.write(
      `${s.id}  [${s.category}]  ${extras.join(" · ")}  (${path.relative(io.cwd, s.source.file)}:${s.source.line})\n`,
    );
  }
  io.stdout.write(`${describeScenarioCount(selected)}\n`);
  return EXIT.ok;
}

export const listCommand: CliCommand = {
  name: "list",
  args: "[paths...]",
  summary: "list the scenarios that would run",
  run: commandList,
};
