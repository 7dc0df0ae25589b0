import vm from "node:vm";
import { describe, expect, it } from "vitest";
import {
  formatDuration,
  formatMetricChange,
  formatMetricDelta,
  formatMetricInterval,
  formatMetricValue,
  formatNumber,
  formatP,
  formatPercentChange,
  formatPoints,
  formatPStatement,
  formatRate,
  formatTokens,
  formatUsd,
  PORTABLE_FORMATTERS,
} from "../../src/render/format.js";
import { EMBEDDED_FORMATTERS } from "../../src/render/html/page-script.js";

describe("the one set of number formats", () => {
  it("writes costs in cents from $1 up and with two significant digits below", () => {
    expect([0, 0.0456, 0.05, 0.5, 0.0012, 0.00012, 0.996, 1.234, 12].map(formatUsd)).toEqual([
      "$0",
      "$0.046",
      "$0.05",
      "$0.50",
      "$0.0012",
      "$0.00012",
      "$1.00",
      "$1.23",
      "$12.00",
    ]);
    expect(formatUsd(-0.0456)).toBe("−$0.046");
    expect(formatUsd(null)).toBe("–");
  });

  it("writes tokens with a lower-case k, and durations in ms, s, min and h", () => {
    expect([950, 999.6, 12_345, 120_000, 999_960, 1_250_000].map(formatTokens)).toEqual([
      "950",
      "1k",
      "12.3k",
      "120k",
      "1M",
      "1.25M",
    ]);
    expect([350, 999.6, 12_345, 59_960, 125_000, 119_600, 3_599_600, 4_500_000].map(formatDuration)).toEqual([
      "350 ms",
      "1 s",
      "12.3 s",
      "1 min",
      "2 min 5 s",
      "2 min",
      "1 h",
      "1 h 15 min",
    ]);
  });

  it("writes rates, counts and p-values to the digits that matter", () => {
    expect([0, 0.025, 0.0996, 0.6667, 1].map(formatRate)).toEqual(["0%", "2.5%", "10%", "67%", "100%"]);
    expect([3, 3.256, 12.55, 450.4, 12_345].map(formatNumber)).toEqual(["3", "3.26", "12.6", "450", "12.3k"]);
    expect(formatNumber(-2.5)).toBe("−2.5");
    expect([0.0004, 0.0123, 0.31234, 1, null].map((p) => formatP(p))).toEqual([
      "<0.001",
      "0.0123",
      "0.312",
      "1.00",
      "–",
    ]);
    expect(formatPStatement("adjusted p", 0.0004)).toBe("adjusted p < 0.001");
    expect(formatPStatement("adjusted p", 0.0123)).toBe("adjusted p = 0.0123");
  });

  it("never rounds a decision's p-value across α (issue 24: 0.0504 printed as 0.050)", () => {
    const kept = { alpha: 0.05, rejected: false };
    const flagged = { alpha: 0.05, rejected: true };
    expect(formatPStatement("adjusted p", 0.0504, kept)).toBe("adjusted p = 0.0504");
    expect(formatPStatement("adjusted p", 0.050004, kept)).toBe("adjusted p = 0.050004");
    // Above α by less than six digits show: said as a bound, never as "0.0500".
    expect(formatPStatement("adjusted p", 0.05 + 1e-9, kept)).toBe("adjusted p > 0.05");
    expect(formatPStatement("adjusted p", 0.05, flagged)).toBe("adjusted p = 0.0500");
    expect(formatP(0.049996, flagged)).toBe("0.0500");
    expect(formatP(0.0499999999, flagged)).toBe("0.0500");
    // A verdict the number cannot show (not one decide() gives): the verdict wins, as a bound.
    expect(formatP(0.06, flagged)).toBe("≤ 0.05");
    expect(formatP(0.0004, flagged)).toBe("<0.001");
    // Against an α below the floor, "<0.001" would say nothing: digits instead.
    expect(formatP(0.0004, { alpha: 0.0001, rejected: false })).toBe("0.000400");
    expect(formatP(0.00004, { alpha: 0.0001, rejected: true })).toBe("0.0000400");
  });

  it("signs differences, and writes none on a difference that shows as zero", () => {
    expect(formatPoints(-0.8)).toBe("−80 pts");
    expect(formatPoints(0.045)).toBe("+4.5 pts");
    expect(formatPoints(0.0004)).toBe("0 pts");
    expect(formatPercentChange(25)).toBe("+25%");
    expect(formatPercentChange(0)).toBe("0%");
    const cost = { metric: "cost_usd", kind: "amount" } as const;
    expect(formatMetricValue(cost, 0.0456)).toBe("$0.046");
    expect(formatMetricDelta(cost, -0.0034)).toBe("−$0.0034");
    expect(formatMetricInterval(cost, -0.01, 0.02)).toBe("[−$0.01, +$0.02]");
    const time = { metric: "duration_ms", kind: "amount" } as const;
    expect(formatMetricDelta(time, 125_000)).toBe("+2 min 5 s");
    const tokens = { metric: "input_tokens", kind: "amount" } as const;
    expect(formatMetricValue(tokens, 12_345)).toBe("12.3k");
    const rate = { metric: "pass_rate", kind: "rate" } as const;
    expect(
      formatMetricChange({
        ...rate,
        base_mean: 1,
        head_mean: 0.2,
        delta: -0.8,
        ci_low: -0.97,
        ci_high: -0.27,
      }),
    ).toBe("100% → 20% (−80 pts, 95% CI [−97, −27] pts)");
    expect(formatMetricInterval(rate, -0.43, 0.43)).toBe("[−43, +43] pts");
  });
});

describe("the HTML page's copy of the formatters", () => {
  it("runs on its own, as the page runs it, and agrees with the server's", () => {
    const names = Object.keys(PORTABLE_FORMATTERS);
    const context = vm.createContext({});
    const page = vm.runInContext(
      `(function () { "use strict";\n${EMBEDDED_FORMATTERS}\nreturn { ${names.join(", ")} }; })()`,
      context,
    ) as Record<string, (value: number | null) => string>;
    const samples = [null, 0, -0.0034, 0.0456, 0.5, 3.256, 999.6, 12_345, 125_000, 4_500_000, 1_250_000];
    for (const [name, serverSide] of Object.entries(PORTABLE_FORMATTERS)) {
      for (const value of samples) expect(page[name]?.(value), `${name}(${value})`).toBe(serverSide(value));
    }
  });
});
