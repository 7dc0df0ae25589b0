import { chmod, mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import {
  AGENT_NAMES,
  AGENTS,
  type AgentDescriptor,
  type AgentName,
  apiKeyRemedy,
  createAgent,
  describeMissingApiKey,
  describeModelRefusal,
} from "../../src/agents/registry.js";
import { EXIT } from "../../src/cli/main.js";
import type { Comparison } from "../../src/compare/types.js";
import { ConfigError } from "../../src/errors.js";
import type { ProviderName } from "../../src/model/provider.js";
import type { Report } from "../../src/results/types.js";
import { sampleAgentAccount } from "../../src/sandbox/agent-account.js";
import { withEveryTrialPassing } from "../support/report-factory.js";
import { makeTempDir } from "../support/temp-dirs.js";
import { ROOT, runMain, SUITE } from "./run-main.js";

const agentAccount = await sampleAgentAccount(process.env.PATH ?? "");

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
      `llm-tool-test: --agent: unknown agent "orcale" (did you mean "oracle"?); expected one of: ${AGENT_NAMES.join(", ")}\n`,
    );
  });

  it("says the same thing about a missing key as the library, for every agent that needs one", async () => {
    const needingKey = AGENT_NAMES.filter((name) => AGENTS[name].needsApiKey);
    for (const name of needingKey) {
      // An agent running only another provider's models than the default's is given one, and asks for that key.
      const providers = providersOf(name);
      const foreign = providers.includes("anthropic") ? undefined : providers[0];
      const message = foreign
        ? describeMissingApiKey(name, apiKeyRemedy(foreign))
        : describeMissingApiKey(name);
      const modelFlags = foreign ? ["--model", `${foreign}:some-model`] : [];
      const result = await runMain(["run", SUITE, "--agent", name, ...modelFlags]);
      expect(result.code, name).toBe(EXIT.usage);
      expect(result.stderr, name).toBe(`llm-tool-test: ${message}\n`);
      expect(() => createAgent(name, {}), name).toThrow(new ConfigError(message, "--agent"));
    }
  });

  it("says that an agent runs its providers' models only, before asking for a key", async () => {
    const refusing = AGENT_NAMES.filter((name) => describeModelRefusal(name, null) !== null);
    expect(refusing.length).toBeGreaterThan(0);
    for (const name of refusing) {
      const result = await runMain(["run", SUITE, "--agent", name]);
      expect(result.code, name).toBe(EXIT.usage);
      expect(result.stderr, name).toBe(`llm-tool-test: --model: ${describeModelRefusal(name, null)}\n`);
    }
    expect(describeModelRefusal("codex", null)).toBe(
      "the codex agent runs OpenAI models only: pass --model openai:MODEL",
    );
  });
});

/** The providers whose models an agent runs only (none: any provider's). */
function providersOf(name: AgentName): readonly ProviderName[] {
  const descriptor: AgentDescriptor = AGENTS[name];
  return descriptor.providers ?? [];
}

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
    const result = await runMain(["run", dataset, "--agent", "oracle"], {
      env: { PATH: "/nonexistent", LLM_TOOL_TEST_BWRAP: "/nonexistent/bwrap" },
    });
    expect(result.code).toBe(EXIT.usage);
    expect(result.stderr).toContain(
      'sandbox "bwrap" needs bubblewrap at LLM_TOOL_TEST_BWRAP=/nonexistent/bwrap, but it is not there',
    );
    expect(result.stderr).toContain("apt-get install -y bubblewrap");
  });
});

describe("run --agent command: a relative program path", () => {
  /** A project folder with an agent script under agents/ that writes the names. */
  async function makeProject(mode: number): Promise<{ project: string; out: string }> {
    const project = makeTempDir("ltt-relative-agent-");
    await mkdir(path.join(project, "agents"));
    await writeFile(
      path.join(project, "agents", "names-agent.sh"),
      "#!/bin/sh\njq -r '.[].name' data.json > names.txt\necho done\n",
      { mode },
    );
    return { project, out: path.join(project, "out") };
  }

  it("is a configuration error before any trial when the file is not there, naming the flag and what to do", async () => {
    const { project, out } = await makeProject(0o755);
    const result = await runMain(
      [
        "run",
        SUITE,
        "--agent",
        "command",
        "--agent-command",
        "./agents/no-such-agent.sh {prompt}",
        "--out",
        out,
      ],
      { cwd: project },
    );
    expect(result.code).toBe(EXIT.usage);
    expect(result.stderr).toContain(
      `llm-tool-test: --agent-command: the agent command's program "./agents/no-such-agent.sh" does not exist: a relative path is taken from the folder the run starts in (${project}); give the path from there, an absolute path or a name on PATH`,
    );
    expect(result.stderr.trim().split("\n")).toHaveLength(1);
    // No trial ran: no output folder at all.
    await expect(readdir(out)).rejects.toThrow(/ENOENT/);
  });

  it("is a configuration error when the file is not executable", async () => {
    const { project, out } = await makeProject(0o644);
    const result = await runMain(
      ["run", SUITE, "--agent", "command", "--agent-command", "agents/names-agent.sh", "--out", out],
      { cwd: project },
    );
    expect(result.code).toBe(EXIT.usage);
    expect(result.stderr).toMatch(
      /--agent-command: .*"agents\/names-agent\.sh" .* is not executable: .*chmod \+x/,
    );
    await expect(readdir(out)).rejects.toThrow(/ENOENT/);
  });

  // Only where agents run as accounts of their own (root, or passwordless sudo) is there another user to be refused.
  it.skipIf(agentAccount === null)(
    "is a configuration error before any trial when the agent's account cannot reach it (a private folder)",
    async () => {
      const { project, out } = await makeProject(0o755);
      // What `mktemp -d` makes: a folder only its owner may enter.
      await chmod(path.join(project, "agents"), 0o700);
      const result = await runMain(
        [
          "run",
          SUITE,
          "--agent",
          "command",
          "--agent-command",
          "./agents/names-agent.sh {prompt}",
          "--sandbox",
          "local",
          "--out",
          out,
        ],
        { cwd: project },
      );
      expect(result.code).toBe(EXIT.usage);
      expect(result.stderr).toMatch(
        new RegExp(
          `(^|\\n)llm-tool-test: local sandbox: the agent runs as a user of its own \\(llm-tool-test-agent-\\d+\\), which cannot run ${project}/agents/names-agent\\.sh .*the folder ${project}/agents is closed to other users \\(mode 0700\\)\\. Give other users access \\(chmod o\\+x ${project}/agents\\).* or set --sandbox bwrap\n$`,
        ),
      );
      expect(result.stderr).not.toMatch(/\n\s+at /);
      await expect(readdir(out)).rejects.toThrow(/ENOENT/);
    },
  );

  it("runs the program found from the folder the run starts in, as the user's shell would", async () => {
    const { project, out } = await makeProject(0o755);
    const result = await runMain(
      [
        "run",
        SUITE,
        "--agent",
        "command",
        "--agent-command",
        "./agents/names-agent.sh {prompt}",
        "--sandbox",
        "local",
        "--tags",
        "smoke",
        "--out",
        out,
        "-q",
      ],
      { cwd: project },
    );
    const report = JSON.parse(await readFile(path.join(out, "report.json"), "utf8")) as Report;
    const trials = report.scenarios.flatMap((scenario) => scenario.trials);
    expect(trials.length).toBeGreaterThan(0);
    // Not exit 127 in the work dir: the agent ran and stopped on its own, and its work passed.
    for (const trial of trials) expect([trial.end_reason, trial.outcome]).toEqual(["natural_stop", "pass"]);
    expect(result.code).toBe(EXIT.ok);
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
    // Four runs in bwrap, each call of the target through the trial's broker (shim-broker.ts): longer
    // than the default timeout on a loaded machine.
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

describe("run: the output folder of an earlier run", () => {
  const brokenSetup = async () => {
    const dir = makeTempDir("ltt-broken-setup-");
    // Every trial's setup fails: after three infrastructure errors in a row the run stops.
    await writeFile(
      path.join(dir, "broken.yaml"),
      "name: broken\ntask: t\ntrials: 5\nsetup: ['exit 7']\nevaluation:\n  gates: [{type: file_exists, path: x}]\n",
    );
    return dir;
  };

  it("--out refuses a folder that already holds files, unless --force", async () => {
    const dir = await brokenSetup();
    const out = makeTempDir("ltt-used-out-");
    await writeFile(path.join(out, "report.json"), "{}\n");
    const refused = await runMain([
      "run",
      dir,
      "--agent",
      "oracle",
      "--sandbox",
      "local",
      "--out",
      out,
      "-q",
    ]);
    expect(refused.code).toBe(EXIT.usage);
    expect(refused.stderr).toBe(
      `llm-tool-test: --out: ${JSON.stringify(out)} already holds files (an earlier run's?): choose a new folder, finish an interrupted run there with --resume ${out}, or pass --force to write into it\n`,
    );
    expect(await readFile(path.join(out, "report.json"), "utf8")).toBe("{}\n");
    const forced = await runMain([
      "run",
      dir,
      "--agent",
      "oracle",
      "--sandbox",
      "local",
      "--out",
      out,
      "-q",
      "--force",
    ]);
    expect(forced.code).toBe(EXIT.incomplete);
    expect((JSON.parse(await readFile(path.join(out, "report.json"), "utf8")) as Report).summary.trials).toBe(
      5,
    );
  });

  it("says how to finish a run that stopped before all its trials ran", async () => {
    const dir = await brokenSetup();
    const out = path.join(makeTempDir("ltt-resume-hint-"), "run");
    const result = await runMain(["run", dir, "--agent", "oracle", "--sandbox", "local", "--out", out, "-q"]);
    const report = JSON.parse(await readFile(path.join(out, "report.json"), "utf8")) as Report;
    expect(report.run.incomplete).toBe(true);
    expect(report.summary.skipped).toBe(2);
    expect(result.stderr).toContain(
      `note: 2 trial(s) did not run. To finish this run, repeat the command with --resume ${out} (in place of --out): the trials that finished are kept.\n`,
    );
  });
});
