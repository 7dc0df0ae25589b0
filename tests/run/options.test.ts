import { describe, expect, it } from "vitest";
import { DEFAULT_EXTRA_TRIALS, DEFAULT_TRIALS, defaultRunOptions } from "../../src/run/options.js";

describe("defaultRunOptions", () => {
  it("takes an explicit undefined as the default, not as none (trials: undefined once ran 0 trials)", () => {
    const options = defaultRunOptions({ outDir: "out", trials: undefined, extraTrials: undefined });
    expect(options.trials).toBe(DEFAULT_TRIALS);
    expect(options.extraTrials).toBe(DEFAULT_EXTRA_TRIALS);
  });

  it("keeps what is given, null included", () => {
    const options = defaultRunOptions({ outDir: "out", trials: 5, maxCostUsd: null, judgeModel: "m" });
    expect(options).toMatchObject({ outDir: "out", trials: 5, maxCostUsd: null, judgeModel: "m" });
  });
});
