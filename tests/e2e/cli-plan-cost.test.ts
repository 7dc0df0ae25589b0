/**
 * `plan` predicts what a run costs: a run of init's starter with the default agent against a scripted
 * Anthropic server whose answers vary in length from request to request, then `plan REPORT.json` for
 * its cost per base-branch run, then a second run at the same settings: its measured cost is within
 * 25% of the prediction and inside the predicted 95% range.
 */
import { execFileSync } from "node:child_process";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Report } from "../../src/results/types.js";
import { bashCall, finalText, type ModelServer, startModelServer, turnOf } from "../support/model-server.js";
import { runCli } from "../support/run-cli.js";
import { makeTempDir } from "../support/temp-dirs.js";

const KEY = "sk-ant-canary-plan-cost-41c2";
/** Output tokens of successive answers: trials differ in what they cost, as real ones do. */
const OUTPUT_TOKENS = [140, 820, 310, 1200, 95, 560, 430, 980, 220];

describe("plan's cost per run against a measured run", () => {
  let server: ModelServer;
  let repo: string;
  let answered = 0;

  beforeAll(async () => {
    server = await startModelServer((request) => {
      const usage = { output_tokens: OUTPUT_TOKENS[answered++ % OUTPUT_TOKENS.length]! };
      return turnOf(request) === 0
        ? bashCall("git --version > version.txt", { usage })
        : finalText("Saved.", usage);
    });
    repo = makeTempDir("ltt-plan-cost-");
    execFileSync("git", ["init", "-q", "-b", "main"], { cwd: repo });
    const init = await runCli(["init", "git"], { cwd: repo });
    expect(init.code, init.stderr).toBe(0);
  });
  afterAll(async () => server?.close());

  async function run(name: string): Promise<{ out: string; report: Report }> {
    const out = path.join(repo, name);
    const result = await runCli(["run", "scenarios", "--trials", "5", "--sandbox", "local", "--out", out], {
      cwd: repo,
      env: { ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: server.url },
    });
    expect(result.code, result.stderr).toBe(0);
    return { out, report: JSON.parse(await readFile(path.join(out, "report.json"), "utf8")) as Report };
  }

  it("predicts the next run's cost within 25%, inside its 95% range", async () => {
    const first = await run("run-1");
    const plan = await runCli(["plan", path.join(first.out, "report.json")], { cwd: repo });
    expect(plan.code, plan.stderr).toBe(0);
    const line = plan.stdout.split("\n").find((l) => l.startsWith("Cost per base-branch run:"));
    const match = /~\$([\d.]+) \((\d+) trials.*95% range \$([\d.]+)–\$([\d.]+)\)/.exec(line ?? "");
    expect(match, plan.stdout).not.toBeNull();
    const [expected, trials, low, high] = match!.slice(1).map(Number) as [number, number, number, number];
    expect(trials).toBe(first.report.summary.passed + first.report.summary.failed);
    expect(plan.stdout).toMatch(/^Cost per PR: ~\$/m);

    const second = await run("run-2");
    const measured = second.report.summary.total_cost_usd;
    expect(second.report.summary.trials_cost_unknown ?? 0).toBe(0);
    // The second run's trials met other answer lengths than the first's: not the same cost twice.
    expect(measured).not.toBeCloseTo(first.report.summary.total_cost_usd, 6);
    expect(Math.abs(measured - expected) / measured).toBeLessThanOrEqual(0.25);
    expect(measured).toBeGreaterThanOrEqual(low);
    expect(measured).toBeLessThanOrEqual(high);
  }, 120_000);
});
