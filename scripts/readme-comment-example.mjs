#!/usr/bin/env node
// Regenerates the PR-comment excerpt at the top of the README from real runs: the example suite
// with the oracle agent on the base branch (twelve runs, the action's `baseline-runs`, pooled as the
// action pools its baseline), then the same suite with two solutions changed the way a docs change
// can change an agent's behaviour (the head), 3 trials a run and the default extra trials for a
// scenario that does worse than the baseline, decided, compared and rendered by the action's own
// comment renderer. Run after `npx tsc -p tsconfig.build.json` (or `npm run build`).
import { execFileSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const { compareReports } = await import(path.join(root, "lib/compare/compare.js"));
const { decide } = await import(path.join(root, "lib/compare/decision.js"));
const { describePooling, poolBaselines } = await import(path.join(root, "lib/compare/pool-baselines.js"));
const { loadScenarios } = await import(path.join(root, "lib/scenario/load.js"));
const { DEFAULT_EXTRA_TRIALS } = await import(path.join(root, "lib/stats/regression-decision.js"));
const { renderComment } = await import(path.join(root, "lib/render/pr-comment.js"));

const work = mkdtempSync(path.join(os.tmpdir(), "ltt-readme-"));
const head = path.join(work, "head-suite");
cpSync(path.join(root, "scenarios-example"), head, { recursive: true });
// The head's agent now reaches for --help first before succeeding...
const edit = (file, from, to) => {
  const text = readFileSync(path.join(head, file), "utf8");
  if (!text.includes(from)) throw new Error(`${file}: ${from} not found`);
  writeFileSync(path.join(head, file), text.replace(from, to));
};
edit("active-customers.yaml", "solution:\n", "solution:\n  - jq --help > /dev/null\n");
// ...and no longer writes the file one scenario checks.
edit("extract-error-lines.yaml", "solution:\n", "solution:\n  - exit 0\n");
const extract = readFileSync(path.join(head, "extract-error-lines.yaml"), "utf8");
writeFileSync(
  path.join(head, "extract-error-lines.yaml"),
  extract.replace(/solution:\n {2}- exit 0\n(?: {2}- .*\n)+/, "solution:\n  - exit 0\n"),
);

const run = (suite, out, baselineFiles = []) => {
  try {
    execFileSync(
      process.execPath,
      [
        path.join(root, "bin/llm-tool-test.js"),
        "run",
        suite,
        "--agent",
        "oracle",
        "--trials",
        "3",
        "-j",
        "4",
        "--out",
        out,
        "-q",
        ...baselineFiles.flatMap((file) => ["--baseline", file]),
      ],
      { stdio: "ignore" },
    );
  } catch {
    // A failing run exits 1: that is the point of the head.
  }
  return JSON.parse(readFileSync(path.join(out, "report.json"), "utf8"));
};
const BASE_SHAS = [
  "4f3c2a1",
  "9e8d7c6",
  "5b4a392",
  "1c0d9e8",
  "7a6b5c4",
  "3d2e1f0",
  "8c9b0a1",
  "2f3e4d5",
  "6e5d4c3",
  "0a9b8c7",
  "b1c2d3e",
  "e4f5a6b",
];
// The head's scenarios are the base's: only the agent's behaviour (here, the oracle's solution, which
// is part of a scenario's measurement) changed, as when a docs change changes what an agent does. So
// the base reports carry the head's scenario hashes and treatment (the head's copy lives elsewhere),
// and the head run pools them and screens for extra trials as the action would.
const headScenarios = new Map((await loadScenarios([head])).map((s) => [s.id, s]));
// Run oldest first, so each report's start time orders the runs as their numbers do (run #42 the newest).
const baselines = [...BASE_SHAS.entries()]
  .reverse()
  .map(([i, sha]) => {
    const out = path.join(work, `base-${i}`);
    const report = run(path.join(root, "scenarios-example"), out);
    for (const scenario of report.scenarios) {
      const same = headScenarios.get(scenario.id);
      if (!same) continue;
      scenario.content_hash = same.contentHash;
      scenario.measurement_hash = same.measurementHash;
    }
    writeFileSync(path.join(out, "report-as-head.json"), JSON.stringify(report));
    return { report, label: `run #${42 - i} (\`${sha}\`)`, file: path.join(out, "report-as-head.json") };
  })
  .reverse();
const headReport = run(
  head,
  path.join(work, "head"),
  baselines.map((b) => b.file),
);
// The same guidance files, read from the repository's copy for the base and the temp copy for the head.
const headTreatment = new Map(headReport.scenarios.map((s) => [`${s.id}@${s.variant ?? ""}`, s.treatment]));
for (const { report } of baselines)
  for (const scenario of report.scenarios)
    scenario.treatment = headTreatment.get(`${scenario.id}@${scenario.variant ?? ""}`) ?? scenario.treatment;
const pooled = poolBaselines(baselines, headReport);
const decision = decide({
  head: headReport,
  baseline: pooled.report,
  pooling: describePooling(pooled),
  // The head ran the CLI's default design.
  extraTrials: DEFAULT_EXTRA_TRIALS,
});
const comparison = compareReports(pooled.report, headReport);
const now = Date.parse(headReport.run.ended_at);
const comment = renderComment({
  key: "llm-tool-test",
  report: headReport,
  decision,
  comparison,
  baseline: {
    status: "found",
    source: {
      kind: "auto",
      sha: "4f3c2a1b0e9d8c7f6a5b4c3d2e1f0a9b8c7d6e5f",
      createdAt: new Date(now - 3 * 3600_000).toISOString(),
      runId: 1234567890,
      runNumber: 42,
      runUrl: "https://github.com/OWNER/REPO/actions/runs/1234567890",
      artifactId: 987654,
      matchesBaseSha: true,
      file: "report.json",
    },
    baseRef: "main",
    baseSha: "4f3c2a1b0e9d8c7f6a5b4c3d2e1f0a9b8c7d6e5f",
    moreRuns: pooled.used.length - 1,
  },
  runUrl: "https://github.com/OWNER/REPO/actions/runs/1234567891",
  artifactUrl: "https://github.com/OWNER/REPO/actions/runs/1234567891/artifacts/987655",
  headSha: "a1b2c3d4e5f60718293a4b5c6d7e8f9012345678",
  now,
});
// The excerpt: the headline and the table, up to the first collapsed section.
const excerpt = comment
  .split("\n")
  .filter((line) => !line.startsWith("<!-- llm-tool-test"))
  .join("\n")
  .split("<details>")[0]
  .trim();
const readmePath = path.join(root, "README.md");
const readme = readFileSync(readmePath, "utf8");
const block = `<!-- comment-example:start -->\n${excerpt
  .split("\n")
  .map((line) => `> ${line}`.trimEnd())
  .join(
    "\n",
  )}\n>\n> *(The top of a comment the action rendered from runs of \`scenarios-example\`: twelve base-branch runs pooled as the baseline, and a head whose agent calls \`--help\` first in one scenario and stops writing its output in another; 3 trials a run, and ${DEFAULT_EXTRA_TRIALS} more for a scenario whose first trials do worse than the baseline. Per-scenario metrics and the full report follow, collapsed. \`scripts/readme-comment-example.mjs\` regenerates it.)*\n<!-- comment-example:end -->`;
writeFileSync(
  readmePath,
  readme.replace(/<!-- comment-example:start -->[\s\S]*?<!-- comment-example:end -->/, block),
);
console.log(excerpt);
