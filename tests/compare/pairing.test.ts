/**
 * compare/pairing.ts through decide(): which scenarios are compared, which are listed as not
 * compared (with their head results), and what the PR changed in the treatment — read from a
 * baseline report that may be hostile, rendered inert.
 */
import { describe, expect, it } from "vitest";
import { decide } from "../../src/compare/decision.js";
import { readTreatment } from "../../src/compare/pairing.js";
import {
  renderDecisionReason,
  renderScopeLines,
  renderScopeLinesHtml,
  renderScopeLinesPlain,
} from "../../src/render/decision.js";
import type { ReportTreatment, ScenarioReport } from "../../src/results/types.js";
import { makeReport, makeScenarioReport, type TrialSpec, trialsFrom } from "../support/report-factory.js";

const pass: TrialSpec = { outcome: "pass" };
const fail: TrialSpec = { outcome: "fail" };
const times = (n: number, spec: TrialSpec) => Array.from({ length: n }, () => spec);

function guided(path: string, sha256: string | null, mode = "workdir"): ReportTreatment {
  return { guidance: [{ path, sha256, mode }], tool: [] };
}

function entry(id: string, specs: TrialSpec[], measurement: string, treatment?: unknown): ScenarioReport {
  return makeScenarioReport({
    id,
    trials: trialsFrom(specs),
    measurement_hash: measurement,
    content_hash: `${measurement}:${JSON.stringify(treatment ?? null)}`,
    ...(treatment === undefined ? {} : { treatment: treatment as ReportTreatment }),
  });
}

describe("decide: compared and not compared", () => {
  it("lists a changed and a new scenario with their head results; a changed one that collapsed is not hidden", () => {
    const base = makeReport([
      entry("same", times(12, pass), "m1", guided("AGENTS.md", "old")),
      entry("changed", times(12, pass), "m2"),
    ]);
    const head = makeReport([
      entry("same", times(3, pass), "m1", guided("AGENTS.md", "new")),
      entry("changed", times(3, fail), "m2-edited"),
      entry("new", [pass, fail, pass], "m3"),
    ]);
    const decision = decide({ head, baseline: base });
    expect(decision.basis).toBe("inconclusive");
    expect(decision.inconclusive?.reasons).toContain(
      "2 scenarios were not compared (new, or measuring something else than the base runs did)",
    );
    expect(decision.not_compared).toEqual([
      { key: "changed", reason: "measurement_changed", head: { passed: 0, trials: 3 } },
      { key: "new", reason: "not_in_baseline", head: { passed: 2, trials: 3 } },
    ]);
    expect(decision.scenarios.find((s) => s.key === "changed")).toMatchObject({ base: null, tested: false });
    // Never a bare pass while a scenario went unseen.
    expect(renderDecisionReason(decision)).toMatch(
      /^Inconclusive: no regression seen, but .*2 scenarios were not compared/,
    );
    expect(renderScopeLines(decision)).toEqual([
      "Guidance changed: `AGENTS.md` (1 scenario) — the change under test.",
      "Not compared, no verdict (head results shown): changed since the base runs (1): `changed` 0/3; not in the base runs (1): `new` 2/3.",
    ]);
  });

  it("a named baseline in which every scenario changed compares nothing: neutral, every scenario listed", () => {
    const base = makeReport([entry("a", times(12, pass), "m-a"), entry("b", times(12, pass), "m-b")]);
    const head = makeReport([entry("a", times(3, fail), "m-a2"), entry("c", times(3, pass), "m-c")]);
    const decision = decide({ head, baseline: base });
    expect(decision).toMatchObject({ basis: "no_baseline", failed: false });
    expect(decision.not_compared).toEqual([
      { key: "a", reason: "measurement_changed", head: { passed: 0, trials: 3 } },
      { key: "c", reason: "not_in_baseline", head: { passed: 3, trials: 3 } },
    ]);
    expect(renderDecisionReason(decision)).toBe(
      "Nothing to compare: 2 scenarios changed since the base runs or not in them (listed below) — this check does not gate.",
    );
  });

  it("without any usable baseline, still lists the scenarios left out because they changed", () => {
    const head = makeReport([entry("a", times(3, fail), "m-a2"), entry("b", times(3, pass), "m-b")]);
    const decision = decide({
      head,
      baseline: null,
      pooling: {
        runs: [],
        excluded: [{ label: "run #4", scenario: "a", reason: "the scenario changed since this run" }],
      },
    });
    expect(decision.basis).toBe("no_baseline");
    expect(decision.not_compared).toEqual([
      { key: "a", reason: "measurement_changed", head: { passed: 0, trials: 3 } },
    ]);
  });

  it("names guidance changed, given another way, added and removed, and the tool's build", () => {
    const tool = (sha256: string) => ({ path: "bin/tool", sha256 });
    const base = makeReport([
      entry("a", [pass], "ma", {
        guidance: [{ path: "AGENTS.md", sha256: "1", mode: "workdir" }],
        tool: [tool("t1")],
      }),
      entry("b", [pass], "mb", { guidance: [{ path: "AGENTS.md", sha256: "1", mode: "workdir" }], tool: [] }),
      entry("c", [pass], "mc", { guidance: [], tool: [] }),
      entry("d", [pass], "md", { guidance: [{ path: "old.md", sha256: "1", mode: "workdir" }], tool: [] }),
      // Unknown on one side: a report of an earlier version, or a build not readable.
      entry("e", [pass], "me"),
      entry("f", [pass], "mf", { guidance: [], tool: [{ path: "bin/tool", sha256: null }] }),
    ]);
    const head = makeReport([
      entry("a", [pass], "ma", {
        guidance: [{ path: "AGENTS.md", sha256: "2", mode: "workdir" }],
        tool: [tool("t2")],
      }),
      entry("b", [pass], "mb", { guidance: [{ path: "AGENTS.md", sha256: "1", mode: "system" }], tool: [] }),
      entry("c", [pass], "mc", { guidance: [{ path: "new.md", sha256: "1", mode: "workdir" }], tool: [] }),
      entry("d", [pass], "md", { guidance: [], tool: [] }),
      entry("e", [pass], "me", guided("AGENTS.md", "2")),
      entry("f", [pass], "mf", { guidance: [], tool: [tool("t2")] }),
    ]);
    const changes = decide({ head, baseline: base }).treatment_changes;
    expect(changes?.files).toEqual([
      { kind: "guidance", path: "AGENTS.md", change: "changed", scenarios: ["a"] },
      { kind: "tool", path: "bin/tool", change: "changed", scenarios: ["a"] },
      { kind: "guidance", path: "AGENTS.md", change: "mode", scenarios: ["b"] },
      { kind: "guidance", path: "new.md", change: "added", scenarios: ["c"] },
      { kind: "guidance", path: "old.md", change: "removed", scenarios: ["d"] },
    ]);
    expect(changes?.scenarios.map((s) => s.key)).toEqual(["a", "b", "c", "d"]);
    expect(changes?.unknown).toBe(1);
  });
});

describe("a guidance change the head's agent was not shown", () => {
  const shown = (path: string, sha256: string, delivery: string): ReportTreatment => ({
    guidance: [{ path, sha256, mode: "workdir", delivery } as ReportTreatment["guidance"][number]],
    tool: [],
  });

  it("is warned about under the guidance line, per file and how it reached the agent", () => {
    const base = makeReport([
      entry("a", times(12, pass), "ma", guided("AGENTS.md", "1")),
      entry("b", times(12, pass), "mb", guided("AGENTS.md", "1")),
      entry("c", times(12, pass), "mc", guided("docs/tool.md", "1")),
      entry("d", times(12, pass), "md", guided("AGENTS.md", "1")),
    ]);
    const head = makeReport([
      entry("a", times(3, pass), "ma", shown("AGENTS.md", "2", "not_shown")),
      entry("b", times(3, pass), "mb", shown("AGENTS.md", "2", "not_shown")),
      entry("c", times(3, pass), "mc", shown("docs/tool.md", "2", "work_dir_only")),
      // Shown to its model: nothing to warn about.
      entry("d", times(3, pass), "md", shown("AGENTS.md", "2", "system_prompt")),
    ]);
    const decision = decide({ head, baseline: base });
    expect(decision.treatment_changes?.unseen).toEqual([
      { path: "AGENTS.md", delivery: "not_shown", scenarios: ["a", "b"] },
      { path: "docs/tool.md", delivery: "work_dir_only", scenarios: ["c"] },
    ]);
    expect(renderScopeLines(decision)).toEqual([
      "Guidance changed: `AGENTS.md` (3 scenarios); guidance changed: `docs/tool.md` (1 scenario) — the change under test.",
      "⚠️ The changed guidance `AGENTS.md` was not shown to the agent (2 scenarios): this agent reads no guidance, so the change cannot show in these results; run with an agent that does (docs/agents.md, Guidance).",
      "⚠️ The changed guidance `docs/tool.md` was only put in the work dir (1 scenario): whether this agent reads it is not known, so the change may not show in these results.",
    ]);
  });

  it("no warning when the guidance reached the model, or the head's report does not say (earlier versions)", () => {
    const base = makeReport([entry("a", times(12, pass), "ma", guided("AGENTS.md", "1"))]);
    for (const treatment of [
      shown("AGENTS.md", "2", "cli_context_file"),
      guided("AGENTS.md", "2"),
      // A delivery this version does not know is not believed.
      shown("AGENTS.md", "2", "telepathy"),
    ]) {
      const head = makeReport([entry("a", times(3, pass), "ma", treatment)]);
      const decision = decide({ head, baseline: base });
      expect(decision.treatment_changes?.unseen).toEqual([]);
      expect(renderScopeLines(decision)).toHaveLength(1);
    }
  });

  it("renders the path inert in Markdown, HTML and plain text", () => {
    const path = "</details><!-- `@octocat` <img src=x onerror=alert(1)>\u001b[31m";
    const base = makeReport([entry("a", times(12, pass), "m", guided(path, "1"))]);
    const head = makeReport([entry("a", times(3, pass), "m", shown(path, "2", "not_shown"))]);
    const decision = decide({ head, baseline: base });
    const warning = renderScopeLines(decision)[1] ?? "";
    expect(warning).toMatch(/^⚠️ The changed guidance /u);
    expect(warning).not.toMatch(/<(img|\/details|!--)|@octocat/);
    const html = renderScopeLinesHtml(decision)[1] ?? "";
    expect(html).toContain("&lt;img src=x onerror=alert(1)&gt;");
    expect(html).not.toMatch(/<(img|\/details|!--)/);
    expect(renderScopeLinesPlain(decision)[1]).not.toContain("\u001b");
  });
});

describe("a hostile baseline's treatment", () => {
  it("is read as data: a malformed treatment is unknown, never a crash", () => {
    for (const bad of [
      null,
      "AGENTS.md",
      { guidance: "AGENTS.md", tool: [] },
      { guidance: [{ path: 1, sha256: "x", mode: "workdir" }], tool: [] },
      { guidance: [{ path: "a", sha256: 5, mode: "workdir" }], tool: [] },
      { guidance: [{ path: "a", sha256: "x" }], tool: [] },
      { guidance: [], tool: [null] },
    ]) {
      expect(readTreatment(bad), JSON.stringify(bad)).toBeNull();
      const base = makeReport([entry("a", times(12, pass), "m", bad)]);
      const head = makeReport([entry("a", times(3, pass), "m", guided("AGENTS.md", "x"))]);
      const decision = decide({ head, baseline: base });
      expect(decision.treatment_changes).toEqual({ files: [], unseen: [], scenarios: [], unknown: 1 });
    }
  });

  it("renders paths and keys inert in Markdown, HTML and plain text", () => {
    const path = "</details><!-- x `@octocat` <img src=x onerror=alert(1)>\u001b[31m";
    const key = "k`|<b>@team";
    const base = makeReport([entry(key, times(12, pass), "m", guided(path, "1"))]);
    const head = makeReport([
      entry(key, times(3, pass), "m", guided(path, "2")),
      entry("<script>", times(3, fail), "n"),
    ]);
    const decision = decide({ head, baseline: base });
    const [markdown, notCompared] = renderScopeLines(decision);
    expect(markdown).not.toContain("<!--");
    expect(markdown).not.toContain("</details>");
    expect(markdown).not.toContain("@octocat");
    expect(markdown).not.toContain("<img");
    expect(notCompared).not.toContain("<script>");
    const html = renderScopeLinesHtml(decision).join("\n");
    expect(html).not.toMatch(/<(img|script|\/details|!--)/);
    expect(html).toContain("&lt;img src=x onerror=alert(1)&gt;");
    const plain = renderScopeLinesPlain(decision).join("\n");
    expect(plain).not.toContain("\u001b");
  });
});
