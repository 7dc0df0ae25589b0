/**
 * Both front ends go through the one pipeline (run/pipeline.ts): the same fixture suite, run by
 * the CLI's `run` and by the action's `mode: run` against the same baseline file, is decided once
 * each by runPipeline, to the same decision, and writes the same report files.
 */
import { readdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { type ActionCore, run } from "../../src/action/main.js";
import type { DecidedRun } from "../../src/compare/decide-run.js";
import type { Report } from "../../src/results/types.js";
import { FIXTURES, readActionDefaults } from "../action/run-dist.js";
import { runMain } from "../cli/run-main.js";
import { type GitHubFake, startGitHubFake } from "../support/github-server.js";
import { withEveryTrialPassing } from "../support/report-factory.js";
import { makeTempDir } from "../support/temp-dirs.js";

/** Each decided run that went through runPipeline, as the front end's `present` step got it. */
const decidedRuns: DecidedRun[] = [];

vi.mock("../../src/run/pipeline.js", async (importOriginal) => {
  const pipeline = await importOriginal<typeof import("../../src/run/pipeline.js")>();
  return {
    ...pipeline,
    runPipeline: ((steps) =>
      pipeline.runPipeline({
        ...steps,
        present: (produced, decided, written) => {
          decidedRuns.push(decided);
          return steps.present(produced, decided, written);
        },
      })) satisfies typeof pipeline.runPipeline,
  };
});

const HEAD = path.join(FIXTURES, "head");
const ORACLE_FLAGS = ["--agent", "oracle", "--sandbox", "local", "--quiet"];

let fake: GitHubFake;

beforeEach(async () => {
  fake = await startGitHubFake();
  decidedRuns.length = 0;
});

afterEach(async () => {
  await fake.close();
});

/** The action's `mode: run` on a push, its inputs over action.yml's defaults; returns its output folder. */
async function runAction(inputs: Record<string, string>): Promise<string> {
  const values: Record<string, string> = { ...(await readActionDefaults()), ...inputs };
  const outputs: Record<string, string> = {};
  const core: ActionCore = {
    getInput: (name) => values[name] ?? "",
    setSecret: () => {},
    setOutput: (name, value) => {
      outputs[name] = value;
    },
    setFailed: () => {},
    info: () => {},
    warning: () => {},
    debug: () => {},
  };
  const tempDir = makeTempDir("pipeline-action-");
  await run({
    core,
    writeSummary: async () => {},
    env: {
      PATH: process.env.PATH,
      GITHUB_EVENT_NAME: "push",
      GITHUB_REPOSITORY: `${fake.owner}/${fake.repo}`,
      GITHUB_SHA: "c".repeat(40),
      GITHUB_WORKSPACE: FIXTURES,
      RUNNER_TEMP: tempDir,
    },
    cwd: FIXTURES,
    artifacts: {
      uploadArtifact: async () => ({ id: 1, size: 1 }),
      downloadArtifact: async () => {
        throw new Error("no download expected");
      },
      listArtifacts: async () => ({ artifacts: [] }),
    },
    runProgram: async () => ({ exitCode: 0, stdout: "", stderr: "" }),
  });
  return path.dirname(outputs["report-path"] as string);
}

async function readReport(outDir: string): Promise<Report> {
  return JSON.parse(await readFile(path.join(outDir, "report.json"), "utf8")) as Report;
}

/** Each scenario's passes and failures: what the oracle's trials came to. */
function outcomes(report: Report): Record<string, [number, number]> {
  return Object.fromEntries(report.scenarios.map((s) => [s.id, [s.summary.passed, s.summary.failed]]));
}

describe("the pipeline both front ends share", () => {
  it("decides the same fixture run, against the same baseline, to the same decision and the same files", async () => {
    const dir = makeTempDir("pipeline-cli-");
    // The baseline: the same suite run by the CLI, every trial passing, so the head's failures regress.
    await runMain(["run", HEAD, ...ORACLE_FLAGS, "--out", path.join(dir, "base")]);
    const baseline = path.join(dir, "base.json");
    await writeFile(
      baseline,
      JSON.stringify(withEveryTrialPassing(await readReport(path.join(dir, "base")))),
    );
    decidedRuns.length = 0;

    const cliOut = path.join(dir, "out");
    const cli = await runMain(["run", HEAD, ...ORACLE_FLAGS, "--baseline", baseline, "--out", cliOut]);
    expect(cli.stderr).not.toContain("llm-tool-test:");
    const actionOut = await runAction({
      agent: "oracle",
      sandbox: "local",
      "working-directory": "head",
      scenarios: ".",
      baseline,
    });

    // Each front end went through runPipeline once, and the two decided alike.
    expect(decidedRuns).toHaveLength(2);
    const [byCli, byAction] = decidedRuns as [DecidedRun, DecidedRun];
    expect(byCli.decision.basis).not.toBe("no_baseline");
    expect(cli.code).toBe(byCli.decision.failed ? 1 : 0);
    expect(byAction.decision).toEqual(byCli.decision);
    const statuses = ({ comparison }: DecidedRun) => comparison?.scenarios.map((s) => [s.id, s.status]);
    expect(statuses(byCli)).toHaveLength(2);
    expect(statuses(byAction)).toEqual(statuses(byCli));

    // The same report files, the same trials' outcomes, the same decision in comparison.json.
    const files = async (dir: string) => (await readdir(dir)).filter((f) => f !== "trials").sort();
    expect(await files(actionOut)).toEqual(await files(cliOut));
    expect(await files(cliOut)).toEqual(expect.arrayContaining(["report.json", "comparison.json"]));
    expect(outcomes(await readReport(actionOut))).toEqual(outcomes(await readReport(cliOut)));
    const decisionIn = async (dir: string) =>
      JSON.parse(await readFile(path.join(dir, "comparison.json"), "utf8")).decision;
    expect(await decisionIn(actionOut)).toEqual(await decisionIn(cliOut));
  });
});
