/**
 * The history page at its stated load (issue 38: "light at 100 runs × 300 scenarios"): 100 base
 * runs and a head of 300 scenarios × 3 trials each (synthetic, report-factory), the tool's build
 * changing every 25 runs. Times buildRunHistory + renderHistoryHtml (median of rounds), the heap
 * they add, the page's size, and one load of the page in headless Chromium (when it is there).
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { expect, it } from "vitest";
import type { Decision } from "../src/compare/decision.js";
import { buildRunHistory } from "../src/compare/run-history.js";
import { renderHistoryHtml } from "../src/render/history-html.js";
import type { Report } from "../src/results/types.js";
import { chromiumAvailable, launchChromium } from "../tests/support/chromium.js";
import { makeReport, makeScenarioReport, trialsFrom } from "../tests/support/report-factory.js";
import { writeBenchmarkSection } from "./benchmarks-file.js";

const RUNS = 100;
const SCENARIOS = 300;
const TRIALS = 3;
const TOOL_EVERY = 25;
const ROUNDS = 5;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

/** Run `run` of the history (the head is run RUNS): pass counts and metrics vary a little by run. */
function reportOf(run: number): Report {
  const build = Math.floor(run / TOOL_EVERY);
  return makeReport(
    Array.from({ length: SCENARIOS }, (_, s) => {
      const passed = TRIALS - ((s * 7 + run * 3) % 5 === 0 ? 1 : 0);
      return makeScenarioReport({
        id: `scenario-${String(s).padStart(3, "0")}`,
        content_hash: `content-${s}-${build}`,
        measurement_hash: `measurement-${s}`,
        treatment: { guidance: [], tool: [{ path: "bin/tool", sha256: String(build).padEnd(64, "0") }] },
        trials: trialsFrom(
          Array.from({ length: TRIALS }, (_, t) => ({
            outcome: t < passed ? ("pass" as const) : ("fail" as const),
            total_commands: 3 + (t < passed ? 0 : 2),
            error_count: t < passed ? 0 : 1,
            input_tokens: 10_000 + run * 20,
            cost_usd: 0.04 + run * 0.0001,
          })),
        ),
      });
    }),
    {
      id: `run-${run + 1}`,
      started_at: new Date(Date.UTC(2026, 0, 1) + run * 86_400_000).toISOString(),
      git_sha: String(run).padStart(40, "a"),
    },
  );
}

it(`history page: buildRunHistory + renderHistoryHtml at ${RUNS} runs × ${SCENARIOS} scenarios`, async () => {
  const base = Array.from({ length: RUNS }, (_, run) => ({
    label: `run #${run + 1}`,
    report: reportOf(run),
  }));
  const head = reportOf(RUNS);
  // Only the decision's ICC and dispersion are read: every scenario gets its run-level band.
  const decision = { variation: { icc_used: 0.1, dispersion: 1.3 } } as unknown as Decision;
  const render = () => renderHistoryHtml({ history: buildRunHistory({ head, base, decision }) });

  globalThis.gc?.();
  const heapBefore = process.memoryUsage().heapUsed;
  let html = render();
  const heapHeld = process.memoryUsage().heapUsed - heapBefore;
  const times: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const started = performance.now();
    html = render();
    times.push(performance.now() - started);
  }
  const bytes = Buffer.byteLength(html);
  expect(html).toContain("llm-tool-test history");

  let load = "Chromium not found: not loaded";
  if (chromiumAvailable) {
    const temp = await mkdtemp(path.join(os.tmpdir(), "ltt-history-bench-"));
    const browser = await launchChromium();
    try {
      const file = path.join(temp, "history.html");
      await writeFile(file, html);
      const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
      const errors: string[] = [];
      page.on("pageerror", (error) => errors.push(error.message));
      const started = performance.now();
      await page.goto(pathToFileURL(file).href, { waitUntil: "load" });
      const loaded = performance.now() - started;
      // The filter's work: every row hidden but the matching one.
      const filterStarted = performance.now();
      await page.fill("#history-filter", "scenario-299");
      const visible = await page.locator("#history-scenarios tbody tr:not([hidden])").count();
      const filtered = performance.now() - filterStarted;
      expect(visible).toBe(1);
      expect(errors).toEqual([]);
      const nodes = await page.evaluate("document.getElementsByTagName('*').length");
      load = `${loaded.toFixed(0)} ms to the load event, ${Number(nodes).toLocaleString("en")} elements; typing a filter that hides 299 rows, through Playwright, ${filtered.toFixed(0)} ms`;
    } finally {
      await browser.close();
      await rm(temp, { recursive: true, force: true });
    }
  }

  const text = [
    "## History page at 100 runs × 300 scenarios",
    "",
    `bench/history-page.bench-run.ts, Node ${process.version}, ${new Date().toISOString().slice(0, 10)}: ${RUNS} base runs and a head,`,
    `${SCENARIOS} scenarios × ${TRIALS} trials each (synthetic reports, the tool's build changing every ${TOOL_EVERY} runs),`,
    `buildRunHistory + renderHistoryHtml, ${ROUNDS} rounds after a first, median; heap held by the first (without \`--expose-gc\``,
    `the figure includes garbage not yet collected); one load of the page in headless Chromium. Load average ${os.loadavg()[0]!.toFixed(1)} at the end.`,
    "",
    "| Figure | Value |",
    "|---|---|",
    `| build + render (median) | ${median(times).toFixed(0)} ms (runs: ${times.map((ms) => ms.toFixed(0)).join(", ")}) |`,
    `| heap added by one build + render | ${(heapHeld / 1e6).toFixed(1)} MB |`,
    `| page size | ${(bytes / 1e6).toFixed(2)} MB |`,
    `| Chromium | ${load} |`,
  ].join("\n");
  process.stdout.write(`\n${text}\n`);
  await writeBenchmarkSection("history-page", text);
});
