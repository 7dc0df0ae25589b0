/**
 * A suite folder on disk with one judged scenario (write "hi" to x.txt; a one-criterion rubric),
 * for tests that run the judge end to end through the CLI.
 */
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { makeTempDir } from "./temp-dirs.js";

export async function writeJudgedSuite(
  prefix: string,
  scenario: { name: string; agentModel?: string; judgeModel?: string },
): Promise<string> {
  const dir = makeTempDir(prefix);
  await mkdir(path.join(dir, "rubrics"));
  await writeFile(
    path.join(dir, "rubrics/quality.yaml"),
    "criteria:\n  - id: done\n    weight: 1\n    description: wrote the file\n",
  );
  await writeFile(
    path.join(dir, `${scenario.name}.yaml`),
    [
      `name: ${scenario.name}`,
      "task: write hi to x.txt",
      ...(scenario.agentModel ? ["agent:", `  model: ${scenario.agentModel}`] : []),
      "evaluation:",
      "  gates:",
      "    - type: file_contains",
      "      path: x.txt",
      "      substring: hi",
      "  judge:",
      "    rubric: rubrics/quality.yaml",
      ...(scenario.judgeModel ? [`    model: ${scenario.judgeModel}`] : []),
      "",
    ].join("\n"),
  );
  return dir;
}
