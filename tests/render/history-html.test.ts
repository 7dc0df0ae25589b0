import { describe, expect, it } from "vitest";
import { buildRunHistory } from "../../src/compare/run-history.js";
import { formatRateRange } from "../../src/render/format.js";
import { renderHistoryHtml } from "../../src/render/history-html.js";
import { wilsonInterval } from "../../src/stats/stats.js";
import { HISTORY_BASE_RUNS, makeExampleHistory, TOOL_CHANGED_AT } from "../support/history-runs.js";
import { SCRIPT_PAYLOAD } from "../support/sample-report.js";

describe("renderHistoryHtml", () => {
  it("shows each run's suite pass rate with its Wilson interval and the treatment change on its row", async () => {
    const { base, head } = await makeExampleHistory();
    const history = buildRunHistory({ head, base });
    const html = renderHistoryHtml({ history });
    const rows = html
      .slice(html.indexOf('<table id="history-runs">'))
      .split("<tr")
      .slice(2, 2 + HISTORY_BASE_RUNS + 1);
    expect(rows).toHaveLength(HISTORY_BASE_RUNS + 1);
    const oldest = history.suite.points[0]!;
    const interval = wilsonInterval(oldest.passed, oldest.trials)!;
    expect(rows[0]).toContain(
      `[${formatRateRange(interval.low, interval.high)}] · ${oldest.passed}/${oldest.trials}`,
    );
    expect(rows[TOOL_CHANGED_AT]).toContain("tool tools/jq changed");
    expect(rows[TOOL_CHANGED_AT - 1]).not.toContain("tools/jq");
    expect(rows[HISTORY_BASE_RUNS]).toContain("(head)");
    // Without a decision there is no run-level band, and the page says so.
    expect(html).not.toContain('class="spread"');
    expect(html).toContain("the run-level band is not drawn");
    expect(html).toContain("default-src 'none'");
  });

  it("keeps a run's label inert", async () => {
    const { base, head } = await makeExampleHistory();
    const [first, ...rest] = base;
    const html = renderHistoryHtml({
      history: buildRunHistory({ head, base: [{ ...first!, label: SCRIPT_PAYLOAD }, ...rest] }),
    });
    expect(html).not.toContain(SCRIPT_PAYLOAD);
    expect(html.match(/<script>/g)).toHaveLength(1);
  });
});
