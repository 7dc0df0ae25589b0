/**
 * The history page over a real sequence of runs (issue 38's done-when): the example suite's
 * extract_error_lines, its target `grep` built into the suite as `bin/grep` (a wrapper of the
 * system's grep, so the tool's build is hashed into the treatment), run by the built CLI with the
 * oracle 12 times as base runs, the build changed between run 6 and run 7, then once as the head;
 * `report --format history` with the 12 `--baseline` files (given newest first: the page orders
 * them). Chromium shows the tool-change marker between runs 6 and 7, every run's Wilson interval,
 * the decision's run-level band, and the head beside the base runs, with nothing loaded.
 * One scenario, two trials a run, each wave of runs at once: the fewest that still shows it.
 */
import { execFileSync } from "node:child_process";
import { chmod, cp, mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { pathToFileURL } from "node:url";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formatRate, formatRateRange } from "../../src/render/format.js";
import type { Report } from "../../src/results/types.js";
import { wilsonInterval } from "../../src/stats/stats.js";
import { CHROMIUM_MISSING, chromiumAvailable, launchChromium } from "../support/chromium.js";
import { ROOT, runCli } from "../support/run-cli.js";
import { makeTempDir } from "../support/temp-dirs.js";

const EXAMPLE = path.join(ROOT, "scenarios-example");
const BASE_RUNS = 12;
/** Runs 1–6 measure build 1, runs 7–12 and the head build 2. */
const FIRST_RUN_OF_BUILD_2 = 7;
const TRIALS = 2;
const ENV = { LANG: "C.UTF-8" };

const title = chromiumAvailable
  ? "the history page of 12 real base runs with a tool change, in Chromium"
  : `the history page of 12 real base runs — SKIPPED: ${CHROMIUM_MISSING}`;

/** The numbers of an SVG path's `M x y ...` moves: one [x, y, ...rest] per move. */
function pathMoves(d: string): number[][] {
  return d
    .split("M")
    .filter((move) => move.trim() !== "")
    .map((move) => (move.match(/-?\d+(\.\d+)?/g) ?? []).map(Number));
}

describe.skipIf(!chromiumAvailable)(title, () => {
  let dir: string;
  let browser: Browser;
  let page: Page;
  const pageErrors: string[] = [];
  const requests: string[] = [];
  let pageUrl: string;
  const toolHashes: string[] = [];

  beforeAll(async () => {
    dir = makeTempDir("ltt-history-");
    const suite = path.join(dir, "suite");
    await mkdir(path.join(suite, "bin"), { recursive: true });
    await cp(path.join(EXAMPLE, "fixtures/logs"), path.join(suite, "fixtures/logs"), { recursive: true });
    const scenario = await readFile(path.join(EXAMPLE, "extract-error-lines.yaml"), "utf8");
    expect(scenario).toContain("\n  binary: grep\n");
    await writeFile(
      path.join(suite, "extract-error-lines.yaml"),
      scenario.replace("\n  binary: grep\n", "\n  binary: bin/grep\n"),
    );
    const systemGrep = execFileSync("sh", ["-c", "command -v grep"], { encoding: "utf8" }).trim();
    const build = async (n: number) => {
      const tool = path.join(suite, "bin/grep");
      await writeFile(tool, `#!/bin/sh\n# build ${n}\nexec ${systemGrep} "$@"\n`);
      await chmod(tool, 0o755);
    };
    const run = async (name: string) => {
      const out = path.join(dir, name);
      const result = await runCli(
        ["run", suite, "--agent", "oracle", "--trials", String(TRIALS), "-j", String(TRIALS)].concat([
          "--sandbox",
          "local",
          "-q",
          "--out",
          out,
        ]),
        { cwd: dir, env: ENV },
      );
      expect(result.code, `${name}: ${result.stdout}\n${result.stderr}`).toBe(0);
      const report = JSON.parse(await readFile(path.join(out, "report.json"), "utf8")) as Report;
      return report.scenarios[0]!.treatment!.tool[0]!.sha256!;
    };
    const names = Array.from({ length: BASE_RUNS }, (_, i) => `base-${String(i + 1).padStart(2, "0")}`);
    // Each wave at once (the runs wait on their trials more than they compute); the second starts
    // after the first has ended, so the page's order by start time puts the change between them.
    await build(1);
    toolHashes.push(...(await Promise.all(names.slice(0, FIRST_RUN_OF_BUILD_2 - 1).map(run))));
    await build(2);
    toolHashes.push(...(await Promise.all([...names.slice(FIRST_RUN_OF_BUILD_2 - 1), "head"].map(run))));

    const history = path.join(dir, "history.html");
    const report = await runCli(
      ["report", "head/report.json", "--format", "history", "--out", history].concat(
        [...names].reverse().flatMap((name) => ["--baseline", `${name}/report.json`]),
      ),
      { cwd: dir, env: ENV },
    );
    expect(report.code, report.stderr).toBe(0);

    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    page.on("pageerror", (error) => pageErrors.push(error.message));
    page.on("console", (message) => {
      if (message.type() === "error" || message.type() === "warning") pageErrors.push(message.text());
    });
    page.on("request", (request) => requests.push(request.url()));
    pageUrl = pathToFileURL(history).href;
    await page.goto(pageUrl, { waitUntil: "load" });
  }, 900_000);

  afterAll(async () => {
    await browser?.close();
  });

  it("ran build 1 in runs 1–6 and build 2 in runs 7–12 and the head", () => {
    const [first, second] = [toolHashes[0], toolHashes[FIRST_RUN_OF_BUILD_2 - 1]];
    expect(first).not.toBe(second);
    expect(toolHashes).toEqual([
      ...Array<string>(FIRST_RUN_OF_BUILD_2 - 1).fill(first!),
      ...Array<string>(BASE_RUNS - FIRST_RUN_OF_BUILD_2 + 2).fill(second!),
    ]);
  });

  it("lists the runs oldest first, the tool change on run 7, each with its interval, the head last", async () => {
    expect(await page.textContent("h1")).toContain("llm-tool-test history");
    const rows = page.locator("#history-runs tbody tr");
    expect(await rows.count()).toBe(BASE_RUNS + 1);
    const cells = (column: number) => rows.locator(`td:nth-child(${column})`).allTextContents();
    const labels = await cells(2);
    // Within a wave the runs started in any order; the waves are in order.
    const wave = (from: number, to: number) =>
      Array.from(
        { length: to - from + 1 },
        (_, i) => `base-${String(from + i).padStart(2, "0")}/report.json`,
      );
    expect(labels.slice(0, 6).sort()).toEqual(wave(1, 6));
    expect(labels.slice(6, BASE_RUNS).sort()).toEqual(wave(7, 12));
    expect(labels[BASE_RUNS]).toBe("head (head)");
    const interval = wilsonInterval(TRIALS, TRIALS)!;
    const rate = `${formatRate(1)} [${formatRateRange(interval.low, interval.high)}] · ${TRIALS}/${TRIALS}`;
    expect(await cells(4)).toEqual(Array(BASE_RUNS + 1).fill(rate));
    const changes = await rows.locator("td.change").allTextContents();
    expect(changes[FIRST_RUN_OF_BUILD_2 - 1]).toBe("tool bin/grep changed");
    expect(changes.filter((text) => text !== "")).toHaveLength(1);
  });

  for (const [where, chart] of [
    ["the suite's chart", "main > svg.rate-chart"],
    ["the scenario's row", "#history-scenarios tbody tr[data-key='extract_error_lines'] svg.rate-chart"],
  ] as const) {
    it(`draws in ${where} the marker between runs 6 and 7, each run's interval, the head beside them`, async () => {
      const svg = page.locator(chart);
      expect(await svg.count()).toBe(1);
      const dots = pathMoves((await svg.locator("path.dots").getAttribute("d")) ?? "");
      expect(dots).toHaveLength(BASE_RUNS);
      const xs = dots.map(([x]) => x!);
      expect([...xs].sort((a, b) => a - b)).toEqual(xs);
      // One whisker per run, the head's too, each from its low end up to its high end.
      const whiskers = pathMoves((await svg.locator("path.whiskers").getAttribute("d")) ?? "");
      expect(whiskers).toHaveLength(BASE_RUNS + 1);
      for (const [x, low, high] of whiskers) {
        expect(low!).toBeGreaterThan(high!);
        expect(x).toBeDefined();
      }
      const head = Number(await svg.locator("circle.head-dot").getAttribute("cx"));
      expect(head).toBeGreaterThan(xs.at(-1)!);
      expect(whiskers.map(([x]) => x)).toEqual([...xs, head]);
      const marker = svg.locator("line.marker.tool");
      expect(await marker.count()).toBe(1);
      expect(await svg.locator("line.marker").count()).toBe(1);
      const x = Number(await marker.getAttribute("x1"));
      expect(x).toBeGreaterThan(xs[FIRST_RUN_OF_BUILD_2 - 2]!);
      expect(x).toBeLessThan(xs[FIRST_RUN_OF_BUILD_2 - 1]!);
      expect((await marker.boundingBox())?.height).toBeGreaterThan(20);
      expect(await svg.locator("g > title").first().textContent()).toBe(
        `before run ${FIRST_RUN_OF_BUILD_2}: tool bin/grep changed`,
      );
    });
  }

  it("draws the decision's run-level band for the scenario, and loads nothing but the page", async () => {
    const row = page.locator("#history-scenarios tbody tr");
    expect(await row.count()).toBe(1);
    expect(await row.locator("rect.spread").count()).toBe(1);
    expect(await row.locator("td.num").first().textContent()).toMatch(/^100% \[\d+%–100%\]$/);
    expect(await page.locator("p.meta").textContent()).toContain("under the decision's model of runs: ICC");
    expect(pageErrors).toEqual([]);
    expect(requests).toEqual([pageUrl]);
  });
});
