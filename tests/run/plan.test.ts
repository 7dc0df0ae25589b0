import { describe, expect, it } from "vitest";
import { folderNameFor, planTrials } from "../../src/run/plan.js";
import { makeScenario } from "../support/scenario-factory.js";

const scenarios = [
  makeScenario({ id: "alpha" }),
  makeScenario({ id: "beta", trials: 3 }),
  makeScenario({
    id: "gamma",
    variants: [{ name: "v1" }, { name: "v2" }],
  }),
];

describe("planTrials", () => {
  it("expands scenario × variant × trial, the scenario's trials winning over the default", () => {
    const keys = planTrials(scenarios, { trials: 2, shard: null }).map((t) => t.key);
    expect(keys).toEqual([
      "alpha#1",
      "alpha#2",
      "beta#1",
      "beta#2",
      "beta#3",
      "gamma@v1#1",
      "gamma@v1#2",
      "gamma@v2#1",
      "gamma@v2#2",
    ]);
  });

  it("splits into disjoint, balanced shards whose union is the whole plan", () => {
    const many = Array.from({ length: 40 }, (_, i) => makeScenario({ id: `s${i}` }));
    const all = planTrials(many, { trials: 5, shard: null }).map((t) => t.key);
    const shards = [1, 2, 3].map((index) =>
      planTrials(many, { trials: 5, shard: { index, count: 3 } }).map((t) => t.key),
    );
    const union = shards.flat();
    expect(new Set(union).size).toBe(union.length);
    expect([...union].sort()).toEqual([...all].sort());
    const sizes = shards.map((s) => s.length);
    expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(1);
  });

  it("gives every trial the same shard whatever the order of the scenario files", () => {
    const many = Array.from({ length: 12 }, (_, i) => makeScenario({ id: `s${i}` }));
    const forward = planTrials(many, { trials: 2, shard: { index: 2, count: 4 } }).map((t) => t.key);
    const backward = planTrials([...many].reverse(), { trials: 2, shard: { index: 2, count: 4 } }).map(
      (t) => t.key,
    );
    expect([...backward].sort()).toEqual([...forward].sort());
  });

  it("makes folder names safe", () => {
    expect(folderNameFor("a b/c@v1")).toBe("a_b_c@v1");
  });
});
