/**
 * The setup both front ends share (prepareRun) says what the user set: a note or an error names
 * the CLI's flag on the command line and the action's input in a workflow (run/setting-names.ts),
 * never the other front end's spelling.
 */
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ACTION_SETTING_NAMES } from "../../src/action/inputs.js";
import { ConfigError } from "../../src/errors.js";
import { createRunModelClient, prepareRun, type RunSettings } from "../../src/run/prepare.js";
import { CLI_SETTING_NAMES, type SettingNames } from "../../src/run/setting-names.js";
import { makeTempDir } from "../support/temp-dirs.js";

const ROOT = path.resolve(import.meta.dirname, "../..");
const BASHKIT = path.join(ROOT, "tests/fixtures/bashkit-eval");
/** A bashkit-eval run recorded on 2026-02-27: its tasks get that bashkit's home layout unless told otherwise. */
const RECORDED = path.join(BASHKIT, "results/haiku-4-5-2026-02-27-file-path-organizer.results.json");
const dir = makeTempDir("ltt-setting-names-");

const FRONT_ENDS: [string, SettingNames][] = [
  ["the CLI", CLI_SETTING_NAMES],
  ["the action", ACTION_SETTING_NAMES],
];

/** prepareRun's notes (or its error) for `settings` as the front end with `names` gives them. */
async function prepare(
  names: SettingNames,
  settings: Partial<RunSettings> & Pick<RunSettings, "paths" | "agent" | "options">,
): Promise<{ notes: string[]; error: string | null }> {
  const notes: string[] = [];
  try {
    await prepareRun(
      {
        cwd: ROOT,
        tags: [],
        tier: null,
        apiKey: null,
        baseURL: null,
        judgeModel: null,
        failClosed: false,
        describeNoMatch: () => "no scenario",
        ...settings,
        options: { sandbox: "local", ...settings.options },
      },
      {
        env: { PATH: process.env.PATH },
        // Built, never called: nothing here reaches a trial. The port is loopback's discard.
        createModelClient: (apiKey, concurrency, attemptTimeoutMs, provider) =>
          createRunModelClient({
            provider,
            apiKey,
            baseURL: "http://127.0.0.1:9",
            concurrency,
            attemptTimeoutMs,
            keySource: "test",
            proxyEnv: {},
          }),
        settingNames: names,
        note: (message) => notes.push(message),
        warn: () => {},
      },
    );
    return { notes, error: null };
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return { notes, error: error.message };
  }
}

/** A scenario judged by the run's default judge, with its rubric. */
async function writeJudgedScenario(): Promise<string> {
  const folder = path.join(dir, "judged");
  await mkdir(folder, { recursive: true });
  await writeFile(
    path.join(folder, "r.yaml"),
    "criteria:\n  - id: done\n    weight: 1\n    description: did it\n",
  );
  await writeFile(path.join(folder, "judged.yaml"), "task: t\nevaluation: {judge: {rubric: r.yaml}}\n");
  return folder;
}

describe.each(FRONT_ENDS)("what prepareRun says names the settings of %s", (_frontEnd, names) => {
  const otherSpelling = names === CLI_SETTING_NAMES ? /input "/ : /--[a-z]/;

  it("the bashkit-home note over a replayed run's own layout", async () => {
    const { notes, error } = await prepare(names, {
      paths: [path.join(BASHKIT, "smoke-test.jsonl")],
      agent: "replay",
      options: { outDir: dir, replayFrom: [RECORDED], bashkitHome: "bashkit-home-created" },
    });
    expect(error).toBeNull();
    const expected = `${names === CLI_SETTING_NAMES ? "--bashkit-home" : 'input "bashkit-home"'} bashkit-home-created: every bashkit task gets it, not the layout of the bashkit that recorded the replayed run`;
    expect(notes).toEqual([expected]);
  });

  it("the note on a model missing from the price table", async () => {
    const { notes, error } = await prepare(names, {
      paths: [path.join(ROOT, "tests/fixtures/scenarios/basic")],
      agent: "anthropic",
      apiKey: "sk-ant-never-sent",
      options: { outDir: dir, model: "claude-unpriced-9" },
    });
    expect(error).toBeNull();
    const [note, ...others] = notes;
    expect(others).toEqual([]);
    expect(note).toMatch(/^cost unknown for model claude-unpriced-9: /);
    if (names === CLI_SETTING_NAMES) {
      expect(note).toContain("--max-cost-usd cannot count it; give its prices with --prices FILE");
    } else {
      // The action takes no price table: no remedy it cannot follow.
      expect(note).toMatch(/input "max-cost-usd" cannot count it$/);
    }
    expect(note).not.toMatch(otherSpelling);
  });

  it("the error for a judge that is the model under test", async () => {
    const { error } = await prepare(names, {
      paths: [await writeJudgedScenario()],
      agent: "anthropic",
      apiKey: "sk-ant-never-sent",
      judgeModel: "claude-haiku-4-5",
      options: { outDir: dir, model: "claude-haiku-4-5" },
    });
    const refusal =
      "scenario judged: the judge model claude-haiku-4-5 is the model under test, and a model grading itself is biased; choose another judge model";
    expect(error).toBe(
      names === CLI_SETTING_NAMES
        ? `--judge-model: ${refusal} (evaluation.judge.model, --judge-model or LLM_TOOL_TEST_JUDGE) or pass --force-judge`
        : // The action has no force-judge input: it is not offered.
          `input "judge-model": ${refusal} (evaluation.judge.model, input "judge-model" or LLM_TOOL_TEST_JUDGE)`,
    );
  });
});

it("the CLI's --model with several --replay-from names both flags", async () => {
  const { error } = await prepare(CLI_SETTING_NAMES, {
    paths: [path.join(BASHKIT, "smoke-test.jsonl")],
    agent: "replay",
    options: {
      outDir: dir,
      model: "claude-haiku-4-5",
      replayFrom: [RECORDED, path.join(BASHKIT, "results/haiku-4-5-2026-02-09-json-to-csv.results.json")],
    },
  });
  expect(error).toBe(
    "--model: --model with several --replay-from: the models are those the recorded runs used; drop --model",
  );
});
