import { describe, expect, test } from "vitest";
import { filterScenarios } from "../../src/scenario/filter.js";
import type { Scenario } from "../../src/scenario/types.js";
import { makeScenario } from "../support/scenario-factory.js";

function scenario(id: string, tags: string[], tier: number): Scenario {
  return makeScenario({ id, tags, tier });
}

const all = [scenario("a", ["smoke"], 1), scenario("b", ["slow", "git"], 2), scenario("c", [], 3)];
const ids = (list: Scenario[]) => list.map((item) => item.id);

describe("filterScenarios", () => {
  test("no filter keeps everything", () => {
    expect(ids(filterScenarios(all, {}))).toEqual(["a", "b", "c"]);
    expect(ids(filterScenarios(all, { tags: [], ids: [] }))).toEqual(["a", "b", "c"]);
  });
  test("tags: any of", () => {
    expect(ids(filterScenarios(all, { tags: ["git", "smoke"] }))).toEqual(["a", "b"]);
    expect(ids(filterScenarios(all, { tags: ["nope"] }))).toEqual([]);
  });
  test("tier: keeps tier <= N", () => {
    expect(ids(filterScenarios(all, { tier: 2 }))).toEqual(["a", "b"]);
    expect(ids(filterScenarios(all, { tier: 0 }))).toEqual([]);
  });
  test("ids, combined with the others", () => {
    expect(ids(filterScenarios(all, { ids: ["c", "b"] }))).toEqual(["b", "c"]);
    expect(ids(filterScenarios(all, { ids: ["b", "c"], tier: 2 }))).toEqual(["b"]);
    expect(ids(filterScenarios(all, { ids: ["a", "b"], tags: ["slow"], tier: 5 }))).toEqual(["b"]);
  });
});
