import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { AGENT_NAMES, AGENTS, createAgent, describeMissingApiKey } from "../../src/agents/registry.js";
import { EXIT } from "../../src/cli/main.js";
import type { Comparison } from "../../src/compare/types.js";
import { ConfigError } from "../../src/errors.js";
import type { Report } from "../../src/results/types.js";
import { withEveryTrialPassing } from "../support/report-factory.js";
import { makeTempDir } from "../support/temp-dirs.js";
import { ROOT, runMain, SUITE } from "./run-main.js";

describe("run: the agents come from the registry", () => {
  it("describes every agent in --help, marking those that need a key", async () => {
    const help = (await runMain(["run", "--help"])).stdout;
    for (const name of AGENT_NAMES) {
      const line = help.split("\n").find((l) => l.trim().startsWith(`${name} `));
      expect(line, name).toBeDefined();
      expect(line, name).toContain(AGENTS[name].description);
      expect(line?.endsWith("(API key)"), name).toBe(AGENTS[name].needsApiKey);
    }
  });

  it("accepts exactly the registry's agents for --agent, with a did-you-mean", async () => {
    const result = await runMain(["run", SUITE, "--agent", "orcale"]);
    expect(result.code).toBe(EXIT.usage);
    expect(result.stderr).toBe(
      `llm-tool-test: --agent must be one of ${AGENT_NAMES.join(", ")}; got "orcale" (did you mean oracle?)\n`,
    );
  });

  it("says the same thing about a missing key as the library, for every agent that needs one", async () => {
    const needingKey = AGENT_NAMES.filter((name) => AGENTS[name].needsApiKey);
    expect(needingKey).toEqual(["anthropic", "claude-code", "opencode"]);
    for (const name of needingKey) {
      const result = await runMain(["run", SUITE, "--agent", name]);
      expect(result.code, name).toBe(EXIT.usage);
      expect(result.stderr, name).toBe(`llm-tool-test: ${describeMissingApiKey(name)}\n`);
      expect(() => createAgent(name, {}), name).toThrow(
        new ConfigError(describeMissingApiKey(name), "--agent"),
      );
    }
  });
});

describe("run: configuration errors exit 2 with one clear line", () => {
  it.each([
    [["--trails", "2"], "unknown option --trails (did you mean --trials?); see `llm-tool-test run --help`"],
    [["--timeout", "1m30"], '--timeout must be a positive duration such as 90s, 5m or 1500ms, got "1m30"'],
    [
      ["--model-timeout", "soon"],
      '--model-timeout must be a positive duration such as 90s, 5m or 1500ms, got "soon"',
    ],
    [["--variant", "oops"], '--variant must look like NAME=FILE (e.g. v2=docs/AGENTS.md), got "oops"'],
    [["--sandbox", "docker"], '--sandbox must be one of auto, local, bwrap; got "docker"'],
  ])("%j", async (flags, message) => {
    const result = await runMain(["run", SUITE, "--agent", "oracle", ...flags]);
    expect(result.code).toBe(EXIT.usage);
    expect(result.stderr).toBe(`llm-tool-test: ${message}\n`);
  });

  it("names a path that matches nothing", async () => {
    const result = await runMain(["run", "no/such/dir"]);
    expect(result.code).toBe(EXIT.usage);
    expect(result.stderr).toContain('no/such/dir" matches no file or directory');
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it("says when the filters leave no scenario", async () => {
    const result = await runMain(["run", SUITE, "--agent", "oracle", "--tags", "nothing-has-this"]);
    expect(result.code).toBe(EXIT.usage);
    expect(result.stderr).toBe("llm-tool-test: no scenario matches the given paths and filters\n");
  });

  it("catches a target binary missing from PATH before anything runs", async () => {
    const result = await runMain([
      "run",
      path.join(ROOT, "tests/fixtures/e2e/missing-binary"),
      "--agent",
      "oracle",
    ]);
    expect(result.code).toBe(EXIT.usage);
    expect(result.stderr).toContain(
      'target binary "definitely-not-installed-tool" is not on PATH (needed by uses_missing_tool',
    );
    expect(result.stderr).toContain("Install it, put it on PATH, or fix target.binary");
  });

  it("catches an unusable bwrap before anything runs", async () => {
    const dataset = path.join(ROOT, "tests/fixtures/bashkit-eval/smoke-test.jsonl");
    const result = await runMain(["run", dataset, "--agent", "oracle"], { env: { PATH: "/nonexistent" } });
    expect(result.code).toBe(EXIT.usage);
    expect(result.stderr).toContain('sandbox "bwrap" needs bubblewrap, but "bwrap" was not found on PATH');
    expect(result.stderr).toContain("apt-get install -y bubblewrap");
  });
});

describe("run with the oracle agent, in process", () => {
  let dir: string;
  beforeAll(async () => {
    dir = makeTempDir("ltt-cli-run-");
  });

  it("reads --timeout 1m30s as 90 seconds, like a scenario's timeout", async () => {
    const out = path.join(dir, "timeout");
    const first = await runMain(["run", SUITE, "--agent", "oracle", "--timeout", "90s", "--out", out, "-q"]);
    expect(first.code).toBe(EXIT.failed); // count_adults fails
    // A resumed run must have the same settings: 1m30s is accepted as the same timeout, 1m31s is not.
    const other = await runMain(["run", SUITE, "--agent", "oracle", "--timeout", "1m31s", "--resume", out]);
    expect(other.code).toBe(EXIT.usage);
    expect(other.stderr).toContain("cannot resume: the scenarios, model or settings changed");
    const same = await runMain([
      "run",
      SUITE,
      "--agent",
      "oracle",
      "--timeout",
      "1m30s",
      "--resume",
      out,
      "-q",
    ]);
    // Nothing but the local sandbox's warning (the settings were accepted as the same).
    expect(same.stderr).toMatch(/^(warning: local sandbox: [^\n]*\n)?$/);
    expect(same.code).toBe(EXIT.failed);
  });

  it("--baseline compares the finished run with it: comparison files, HTML section, terminal verdicts", async () => {
    const base = path.join(dir, "base");
    await runMain(["run", SUITE, "--agent", "oracle", "--trials", "2", "--out", base, "-q"]);
    const head = path.join(dir, "head");
    const result = await runMain([
      "run",
      SUITE,
      "--agent",
      "oracle",
      "--trials",
      "2",
      "--out",
      head,
      "--baseline",
      path.join(base, "report.json"),
      "-q",
    ]);
    // With a baseline the decision governs the exit status: the same suite again did not regress,
    // though one of its scenarios fails (that one failed in the baseline too).
    expect(result.code).toBe(EXIT.ok);
    const comparison = JSON.parse(
      await readFile(path.join(head, "comparison.json"), "utf8"),
    ) as Comparison & {
      decision: { failed: boolean; regressed: string[]; reason: string };
    };
    expect(comparison.decision).toMatchObject({ failed: false, regressed: [] });
    expect(comparison.decision.reason).toMatch(/no regression/i);
    expect(comparison.scenarios.map((s) => s.key).sort()).toEqual(["count_adults", "extract_names"]);
    expect(await readFile(path.join(head, "comparison.md"), "utf8")).toContain("extract_names");
    expect(await readFile(path.join(head, "report.html"), "utf8")).toContain("<h2>Against the baseline</h2>");
    expect(await readFile(path.join(base, "report.html"), "utf8")).not.toContain(
      "<h2>Against the baseline</h2>",
    );
    expect(result.stdout).toContain("count_adults");
    expect(result.stdout).toContain(`Report: ${path.join(head, "report.md")}`);
    expect(result.stderr).not.toContain("could not be compared");
  });

  it("--baseline twice pools both runs; a scenario that collapses against them gets --extra-trials more", async () => {
    const base = path.join(dir, "pool-base");
    await runMain(["run", SUITE, "--agent", "oracle", "--trials", "2", "--out", base, "-q"]);
    // The baseline's count_adults passed: the head's failures are a collapse.
    const report = JSON.parse(await readFile(path.join(base, "report.json"), "utf8")) as Report;
    const passing = withEveryTrialPassing(report);
    const files = ["a", "b", "c", "d"].map((name) => path.join(dir, `pool-${name}.json`));
    for (const file of files) await writeFile(file, JSON.stringify(passing));

    const head = path.join(dir, "pool-head");
    const args = [
      "run",
      SUITE,
      "--agent",
      "oracle",
      "--trials",
      "2",
      ...files.flatMap((file) => ["--baseline", file]),
    ];
    const result = await runMain([...args, "--extra-trials", "3", "--out", head]);
    // 8/8 pooled against 0/5: the decision flags count_adults and the exit status follows it.
    expect(result.code).toBe(EXIT.failed);
    expect(result.stderr).toContain("note: the baseline pools 4 of 4 runs");
    expect(result.stderr).toContain("Extra trials: count_adults gets 3 more");
    const final = JSON.parse(await readFile(path.join(head, "report.json"), "utf8")) as Report;
    const byId = Object.fromEntries(final.scenarios.map((s) => [s.id, s]));
    expect(byId.count_adults).toMatchObject({ first_trials: 2, extended: true });
    expect(byId.count_adults?.trials.map((t) => t.trial)).toEqual([1, 2, 3, 4, 5]);
    expect(byId.extract_names).toMatchObject({ first_trials: 2, extended: false });
    expect(byId.extract_names?.trials).toHaveLength(2);
    const comparison = JSON.parse(await readFile(path.join(head, "comparison.json"), "utf8")) as Comparison;
    const counts = comparison.scenarios.find((s) => s.key === "count_adults");
    expect(counts?.base).toMatchObject({ trials: 8, passed: 8 });
    expect(counts?.head).toMatchObject({ trials: 5, passed: 0 });
    expect((comparison as Comparison & { decision: { regressed: string[] } }).decision.regressed).toEqual([
      "count_adults",
    ]);

    const off = await runMain([...args, "--extra-trials", "0", "--out", path.join(dir, "pool-off"), "-q"]);
    // Without extra trials 0/2 against 8/8 still regresses (Boschloo p = 0.0067, Holm over two
    // scenarios 0.013 ≤ 0.025); only the trial counts differ.
    expect(off.code).toBe(EXIT.failed);
    const plain = JSON.parse(await readFile(path.join(dir, "pool-off", "report.json"), "utf8")) as Report;
    expect(plain.scenarios.map((s) => [s.id, s.trials.length, s.extended])).toEqual([
      ["count_adults", 2, undefined],
      ["extract_names", 2, undefined],
    ]);
  });

  it("--variant NAME=FILE runs every scenario once per guidance file and compares them in report.md", async () => {
    await writeFile(path.join(dir, "v1.md"), "Use jq.\n");
    await writeFile(path.join(dir, "v2.md"), "Use jq -r for raw output.\n");
    const out = path.join(dir, "variants");
    const result = await runMain([
      "run",
      path.join(SUITE, "extract-names.yaml"),
      "--agent",
      "oracle",
      "--out",
      out,
      "--trials",
      "2",
      "--variant",
      `terse=${path.join(dir, "v1.md")}`,
      "--variant",
      `detailed=${path.join(dir, "v2.md")}`,
      "-q",
    ]);
    expect(result.code).toBe(EXIT.ok);
    const report = JSON.parse(await readFile(path.join(out, "report.json"), "utf8")) as Report;
    expect(report.scenarios.map((s) => `${s.id}@${s.variant} ${s.trials.length}`)).toEqual([
      "extract_names@terse 2",
      "extract_names@detailed 2",
    ]);
    expect(await readFile(path.join(out, "report.md"), "utf8")).toContain(
      "## Guidance variants: `detailed` against `terse`",
    );
    const twice = await runMain([
      "run",
      SUITE,
      "--agent",
      "oracle",
      "--variant",
      `a=${path.join(dir, "v1.md")}`,
      "--variant",
      `a=${path.join(dir, "v2.md")}`,
    ]);
    expect(twice.stderr).toBe("llm-tool-test: --variant a is given twice\n");
  });
});
