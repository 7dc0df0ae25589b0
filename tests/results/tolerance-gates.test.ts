import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  formatTolerance,
  gatesOfScenario,
  parseToleranceGates,
  TOLERANCE_METRICS,
} from "../../src/results/tolerance-gates.js";
import { configErrorOf } from "../support/config-error.js";

describe("tolerance gates: the setting", () => {
  it("reads METRIC:+N% entries as fractions", () => {
    expect(
      parseToleranceGates(["input_tokens:+20%", "cost_usd: 12.5%", "turns:+0%"], "--tolerance-gates"),
    ).toEqual({ input_tokens: 0.2, cost_usd: 0.125, turns: 0 });
    expect(formatTolerance(0.2)).toBe("+20%");
    expect(formatTolerance(0.125)).toBe("+12.5%");
  });

  it("refuses what it cannot read, naming the setting and what to write", () => {
    const where = 'input "tolerance-gates"';
    expect(configErrorOf(() => parseToleranceGates(["input_tokens"], where)).message).toBe(
      'input "tolerance-gates": expected METRIC:+N% (e.g. input_tokens:+20%), got "input_tokens"',
    );
    expect(configErrorOf(() => parseToleranceGates(["input_tokens:0.2"], where)).message).toBe(
      'input "tolerance-gates" (input_tokens): expected an increase in percent such as "+20%", got "0.2"',
    );
    expect(configErrorOf(() => parseToleranceGates(["input_tokens:-5%"], where)).message).toMatch(
      /expected an increase in percent/,
    );
    expect(configErrorOf(() => parseToleranceGates(["error_rate:+5%"], where)).message).toMatch(
      /^input "tolerance-gates": "error_rate" cannot have a tolerance gate; one of cost_usd, input_tokens/,
    );
    expect(configErrorOf(() => parseToleranceGates(["turns:+5%", "turns:+9%"], where)).message).toBe(
      'input "tolerance-gates": turns is given twice',
    );
  });

  it("a scenario's own gate wins over the suite's, metric by metric", () => {
    expect(gatesOfScenario({ turns: 0.2, cost_usd: 0.1 }, { turns: 0.5 }, "s")).toEqual({
      turns: 0.5,
      cost_usd: 0.1,
    });
  });

  it("the report schema lists exactly the metrics a gate may watch", () => {
    const schema = JSON.parse(
      readFileSync(path.resolve(import.meta.dirname, "../../schema/report.schema.json"), "utf8"),
    );
    const gates = schema.properties.scenarios.items.properties.tolerance_gates;
    expect(gates.propertyNames.enum).toEqual([...TOLERANCE_METRICS]);
  });
});
