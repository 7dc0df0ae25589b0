/**
 * The HTML report in a real headless Chromium (Debian's `chromium` package, driven by
 * playwright-core): it renders, runs without console or page errors, loads nothing but itself,
 * sorts, filters, opens a trial's transcript, and never runs the agent's markup.
 */
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { pathToFileURL } from "node:url";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compareReports } from "../../src/compare/compare.js";
import { buildRunHistory } from "../../src/compare/run-history.js";
import { formatDuration, formatTokens, formatUsd } from "../../src/render/format.js";
import { renderHistoryHtml } from "../../src/render/history-html.js";
import { renderReportHtml } from "../../src/render/html.js";
import { renderJunitXml } from "../../src/render/junit.js";
import { chromiumAvailable as available, CHROMIUM_MISSING, launchChromium } from "../support/chromium.js";
import { makeExampleHistory } from "../support/history-runs.js";
import {
  CDATA_END,
  makeBaselineReport,
  makeLargeReport,
  makeSampleEvents,
  makeSampleReport,
  SCRIPT_PAYLOAD,
} from "../support/sample-report.js";

const ARTIFACTS = path.resolve("test-artifacts");

const title = available
  ? "HTML report in headless Chromium"
  : `HTML report in headless Chromium — SKIPPED: ${CHROMIUM_MISSING}`;

/** The few DOM shapes used inside page callbacks (the project compiles without the DOM library). */
interface Openable {
  open: boolean;
}
interface BrowserStyle {
  getComputedStyle(element: unknown): { stroke: string };
}
interface BrowserXml {
  DOMParser: new () => {
    parseFromString(
      text: string,
      type: string,
    ): { getElementsByTagName(name: string): ArrayLike<{ textContent: string | null }> };
  };
}

if (!available) console.warn(`html-browser.test.ts: ${title}`);

interface PageWatch {
  page: Page;
  url: string;
  consoleErrors: string[];
  pageErrors: string[];
  requests: string[];
  dialogs: string[];
}

describe.skipIf(!available)(title, () => {
  let browser: Browser;

  beforeAll(async () => {
    await mkdir(ARTIFACTS, { recursive: true });
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
  });

  async function openPage(html: string, name: string): Promise<PageWatch> {
    const file = path.join(ARTIFACTS, name);
    await writeFile(file, html);
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    const watch: PageWatch = {
      page,
      url: pathToFileURL(file).href,
      consoleErrors: [],
      pageErrors: [],
      requests: [],
      dialogs: [],
    };
    page.on("console", (message) => {
      if (message.type() === "error" || message.type() === "warning") {
        watch.consoleErrors.push(`${message.type()}: ${message.text()}`);
      }
    });
    page.on("pageerror", (error) => watch.pageErrors.push(error.message));
    page.on("request", (request) => watch.requests.push(request.url()));
    page.on("dialog", (dialog) => {
      watch.dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    await page.goto(watch.url, { waitUntil: "load" });
    return watch;
  }

  function expectClean(watch: PageWatch): void {
    expect(watch.pageErrors).toEqual([]);
    expect(watch.consoleErrors).toEqual([]);
    expect(watch.dialogs).toEqual([]);
    expect(watch.requests).toEqual([watch.url]);
  }

  const scenarioIds = (page: Page) =>
    page.$$eval("#scenario-table tbody tr:not([hidden]) .scenario-id", (cells) =>
      cells.map((c) => c.textContent),
    );

  it("renders the history page: the treatment markers visible, the scenario filter working, nothing loaded", async () => {
    const { base, head } = await makeExampleHistory();
    const watch = await openPage(
      renderHistoryHtml({ history: buildRunHistory({ head, base }) }),
      "history.html",
    );
    const { page } = watch;
    expect(await page.textContent("h1")).toContain("llm-tool-test history");
    const suiteMarkers = page.locator("svg.rate-chart").first().locator("line.marker");
    expect(await suiteMarkers.count()).toBe(3);
    // A vertical line has no width, so Playwright's isVisible() says no: check its height and its stroke.
    for (let i = 0; i < 3; i++) {
      const marker = suiteMarkers.nth(i);
      expect((await marker.boundingBox())?.height).toBeGreaterThan(100);
      expect(
        await marker.evaluate(
          (line) => (globalThis as unknown as BrowserStyle).getComputedStyle(line).stroke,
        ),
      ).toMatch(/^rgb/);
    }
    const rows = page.locator("#history-scenarios tbody tr:not([hidden])");
    expect(await rows.count()).toBe(head.scenarios.length);
    await page.fill("#history-filter", "terse");
    expect(await rows.count()).toBe(head.scenarios.filter((s) => s.variant === "terse").length);
    expectClean(watch);
    await page.close();
  });

  it("renders, sorts, filters and opens a failing trial's transcript without running its markup", async () => {
    const report = makeSampleReport();
    const comparison = compareReports(makeBaselineReport(), report);
    const html = renderReportHtml({ report, events: makeSampleEvents(), comparison });
    const watch = await openPage(html, "html-report.html");
    const { page } = watch;

    expect(await page.textContent("h1")).toContain("llm-tool-test report");
    expect(await page.$$eval("#category-table tbody tr", (rows) => rows.length)).toBe(2);
    expect(await scenarioIds(page)).toEqual(["create_and_link", "search_notes@terse"]);
    expect(await page.$$eval("svg.pass-rate-chart circle", (dots) => dots.length)).toBe(2);
    expect(await page.$$eval("svg.delta-chart g.chart-row", (rows) => rows.length)).toBe(
      comparison.suite.metrics.length,
    );

    // Sorting: pass rate descending puts the 100% variant first, ascending the 50% scenario.
    const passRateHeader = page.locator("#scenario-table th", { hasText: "Pass rate [95% CI]" });
    await passRateHeader.click();
    expect(await passRateHeader.getAttribute("aria-sort")).toBe("ascending");
    expect(await scenarioIds(page)).toEqual(["create_and_link", "search_notes@terse"]);
    await passRateHeader.click();
    expect(await passRateHeader.getAttribute("aria-sort")).toBe("descending");
    expect(await scenarioIds(page)).toEqual(["search_notes@terse", "create_and_link"]);

    // The keyboard sorts too.
    await page.locator("#scenario-table th", { hasText: "Scenario" }).first().focus();
    await page.keyboard.press("Enter");
    expect(await scenarioIds(page)).toEqual(["create_and_link", "search_notes@terse"]);
    await page.keyboard.press(" ");
    expect(await scenarioIds(page)).toEqual(["search_notes@terse", "create_and_link"]);

    // Filtering.
    await page.fill("#scenario-filter", "capture");
    expect(await scenarioIds(page)).toEqual(["create_and_link"]);
    await page.fill("#scenario-filter", "");
    await page.check("#failing-only");
    expect(await scenarioIds(page)).toEqual(["create_and_link"]);
    await page.uncheck("#failing-only");

    await page.screenshot({ path: path.join(ARTIFACTS, "html-report.png"), fullPage: true });

    // Trial #2 of create_and_link: failed gates and judge issues first, then each command with its exit code.
    await page.click(`#scenario-table button.chip[data-trial="1"]`);
    const viewer = page.locator("dialog#trial-viewer");
    await expect.poll(() => viewer.evaluate((d) => (d as unknown as Openable).open)).toBe(true);
    expect(await viewer.locator("h2").textContent()).toBe("create_and_link — trial #2 fail");
    expect(await viewer.locator("ul.failed-gates > li > strong").allTextContents()).toEqual([
      "command_json_path — the two notes are linked",
      "file_contains",
    ]);
    expect(await viewer.locator("ul.judge-issues li").allTextContents()).toEqual([
      "Never linked the notes",
      `Printed ${SCRIPT_PAYLOAD} to the user`,
    ]);
    expect(await viewer.locator(".step.command .cmd-line").allTextContents()).toEqual([
      '$ my-tool create "CAP theorem"',
      "$ my-tool link cap paxos",
    ]);
    expect(await viewer.locator(".step.command .exit").allTextContents()).toEqual(["exit 0", "exit 2"]);
    // The page's script writes figures with the server's own formatters.
    const trial = makeSampleReport().scenarios[0]!.trials[1]!;
    const facts = await viewer.locator("p.facts").textContent();
    expect(facts).toContain(` · ${formatDuration(trial.execution.duration_ms)} · `);
    expect(facts).toContain(`${formatTokens(trial.execution.input_tokens)} in / `);
    expect(facts).toContain(`out tokens · ${formatUsd(trial.execution.cost_usd)}`);
    const firstOutput = viewer.locator(".step.command details.stdout").first();
    expect(await firstOutput.evaluate((d) => (d as unknown as Openable).open)).toBe(false);
    await firstOutput.locator("summary").click();
    expect(await firstOutput.evaluate((d) => (d as unknown as Openable).open)).toBe(true);
    expect(await firstOutput.locator("pre").textContent()).toBe(
      `created note cap\n${SCRIPT_PAYLOAD}\n${CDATA_END}\n`,
    );
    // The agent's markup is text: no element was made from it, nothing ran.
    expect(await viewer.evaluate((d) => d.querySelectorAll("script, img").length)).toBe(0);
    expect(
      await viewer
        .locator(".step.command details.stderr pre")
        .first()
        .evaluate((p) => p.textContent),
    ).toContain('no note named "paxos"');
    expect(page.url()).toBe(`${watch.url}#trial-1`);
    await page.screenshot({ path: path.join(ARTIFACTS, "html-report-trial.png") });

    await page.keyboard.press("Escape");
    await expect.poll(() => viewer.evaluate((d) => (d as unknown as Openable).open)).toBe(false);

    // The failures list opens the errored trial, which has no events in this file.
    await page.click(`#failures button.chip[data-trial="2"]`);
    expect(await viewer.locator("h2").textContent()).toBe("create_and_link — trial #3 error");
    expect(await viewer.locator(".missing-events").textContent()).toContain(
      "trials/create_and_link/3/events.jsonl was not found",
    );
    await page.click("#viewer-close");
    await expect.poll(() => viewer.evaluate((d) => (d as unknown as Openable).open)).toBe(false);

    expectClean(watch);
    await page.close();
  });

  it("opens a trial named in the address (#trial-N)", async () => {
    const report = makeSampleReport();
    const first = report.scenarios[0]!.trials[0]!;
    first.command_pattern_misses = ["my-tool --help", `my-tool -f x ${SCRIPT_PAYLOAD}`];
    const html = renderReportHtml({ report, events: makeSampleEvents() });
    const watch = await openPage(html, "html-report-hash.html");
    await watch.page.goto(`${watch.url}#trial-0`);
    await watch.page.reload();
    const viewer = watch.page.locator("dialog#trial-viewer");
    await expect.poll(() => viewer.evaluate((d) => (d as unknown as Openable).open)).toBe(true);
    expect(await viewer.locator("h2").textContent()).toBe("create_and_link — trial #1 pass");
    expect(await viewer.locator(".step.setup .cmd-line").textContent()).toBe("setup $ my-tool init");
    // The calls the pattern missed, as text.
    expect(await viewer.locator("p", { hasText: "command_pattern does not match" }).textContent()).toBe(
      `Counted, but target.command_pattern does not match them (subcommand from the arguments): my-tool --help; my-tool -f x ${SCRIPT_PAYLOAD}`,
    );
    expect(await viewer.evaluate((d) => d.querySelectorAll("script, img").length)).toBe(0);
    expect(watch.pageErrors).toEqual([]);
    expect(watch.consoleErrors).toEqual([]);
    await watch.page.close();
  });

  it("handles 1,000 scenarios × 5 trials: sorts the whole table and opens a trial from the blob", async () => {
    const watch = await openPage(
      renderReportHtml({ report: makeLargeReport(1000, 5) }),
      "html-report-large.html",
    );
    const { page } = watch;
    expect(await page.$$eval("#scenario-table tbody tr", (rows) => rows.length)).toBe(1000);
    // Nothing of the trials is in the DOM until one is opened.
    expect(await page.$$eval("details", (d) => d.length)).toBe(0);
    await page.locator("#scenario-table th", { hasText: "Pass rate [95% CI]" }).click();
    const rates = await page.$$eval("#scenario-table tbody tr", (rows) =>
      rows.map((r) => Number(r.children[4]?.getAttribute("data-v"))),
    );
    expect(rates.slice(0, 200).every((r) => r === 0.6)).toBe(true);
    expect(rates.slice(200).every((r) => r === 1)).toBe(true);
    await page.click(`button.chip[data-trial="4999"]`);
    expect(await page.locator("dialog#trial-viewer h2").textContent()).toBe("scenario_0999 — trial #5 pass");
    expectClean(watch);
    await page.close();
  });

  it("reads the JUnit XML with Chromium's XML parser", async () => {
    const page = await browser.newPage();
    const xml = renderJunitXml(makeSampleReport());
    const result = await page.evaluate((text) => {
      const { DOMParser } = globalThis as unknown as BrowserXml;
      const doc = new DOMParser().parseFromString(text, "application/xml");
      const error = doc.getElementsByTagName("parsererror")[0];
      return {
        error: error ? error.textContent : null,
        cases: doc.getElementsByTagName("testcase").length,
        failure: doc.getElementsByTagName("failure")[0]?.textContent ?? "",
      };
    }, xml);
    expect(result.error).toBeNull();
    expect(result.cases).toBe(6);
    expect(result.failure).toContain(`Printed ${SCRIPT_PAYLOAD} to the user`);
    await page.close();
  });
});
