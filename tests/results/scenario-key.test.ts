import { describe, expect, it } from "vitest";
import { scenarioKey } from "../../src/results/scenario-key.js";

describe("scenarioKey", () => {
  it("is the id alone without a variant and id@variant with one", () => {
    expect(scenarioKey({ id: "jq-basics", variant: null })).toBe("jq-basics");
    expect(scenarioKey({ id: "jq-basics", variant: undefined })).toBe("jq-basics");
    expect(scenarioKey({ id: "jq-basics", variant: "skill" })).toBe("jq-basics@skill");
  });
});
