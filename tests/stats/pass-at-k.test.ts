import { describe, expect, it } from "vitest";
import { DEFAULT_PASS_K, passKEstimates } from "../../src/stats/pass-at-k.js";

describe("pass@k and pass^k at a fixed k", () => {
  it("defaults to k = 3 and matches C(n−c, k)/C(n, k) and C(c, k)/C(n, k) by hand", () => {
    expect(DEFAULT_PASS_K).toBe(3);
    // 4 of 9: pass@3 = 1 − C(5,3)/C(9,3) = 1 − 10/84; pass^3 = C(4,3)/C(9,3) = 4/84.
    const nine = passKEstimates(4, 9);
    expect(nine.k).toBe(3);
    expect(nine.passAtK).toBeCloseTo(74 / 84, 14);
    expect(nine.passHatK).toBeCloseTo(4 / 84, 14);
    // 9 of 12: pass@3 = 1 − C(3,3)/C(12,3) = 219/220; pass^3 = C(9,3)/C(12,3) = 84/220.
    const twelve = passKEstimates(9, 12);
    expect(twelve.passAtK).toBeCloseTo(219 / 220, 14);
    expect(twelve.passHatK).toBeCloseTo(84 / 220, 14);
    // 3 of 5: two failures cannot fill 3 draws, so pass@3 = 1; pass^3 = C(3,3)/C(5,3) = 1/10.
    expect(passKEstimates(3, 5).passAtK).toBe(1);
    expect(passKEstimates(3, 5).passHatK).toBeCloseTo(0.1, 14);
    // Exactly k trials: any passed / all passed.
    expect(passKEstimates(2, 3)).toEqual({ k: 3, passAtK: 1, passHatK: 0 });
  });

  it("is n/a (null) with fewer than k trials, and takes another k", () => {
    expect(passKEstimates(2, 2)).toEqual({ k: 3, passAtK: null, passHatK: null });
    expect(passKEstimates(0, 0)).toEqual({ k: 3, passAtK: null, passHatK: null });
    // k = 2, 1 of 4: pass@2 = 1 − C(3,2)/C(4,2) = 1/2; pass^2 = 0.
    expect(passKEstimates(1, 4, 2)).toEqual({ k: 2, passAtK: 0.5, passHatK: 0 });
  });
});
