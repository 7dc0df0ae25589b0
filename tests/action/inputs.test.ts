import { describe, expect, it } from "vitest";
import { deriveArtifactName, readActionSettings } from "../../src/action/inputs.js";
import { AGENT_NAMES } from "../../src/agents/registry.js";
import { ConfigError } from "../../src/errors.js";
import { readActionDefaults } from "./run-dist.js";

/** A `core.getInput` over a map, with action.yml's defaults underneath as the runner provides them. */
async function readWith(inputs: Record<string, string>) {
  const defaults = await readActionDefaults();
  const values: Record<string, string> = { ...defaults, "github-token": "ghs_token", ...inputs };
  return readActionSettings((name) => {
    if (!(name in defaults)) throw new Error(`the action read "${name}", which action.yml does not declare`);
    return values[name] ?? "";
  });
}

async function errorFor(inputs: Record<string, string>): Promise<ConfigError> {
  const error = await readWith(inputs).then(
    () => null,
    (e: unknown) => e,
  );
  if (!(error instanceof ConfigError)) throw new Error(`expected a ConfigError, got ${String(error)}`);
  return error;
}

describe("readActionSettings", () => {
  it("turns action.yml's defaults into the documented settings", async () => {
    expect(await readWith({})).toEqual({
      mode: "run",
      scenarios: ["scenarios"],
      apiKey: "",
      openaiApiKey: "",
      geminiApiKey: "",
      geminiBaseURL: null,
      openaiBaseURL: null,
      openaiApi: "auto",
      model: "claude-haiku-4-5",
      models: [],
      judgeModel: null,
      agent: "anthropic",
      agents: [],
      agentModels: {},
      agentEndpoints: {},
      agentCommand: null,
      baseURL: null,
      bashkitHome: null,
      trials: 3,
      extraTrials: 8,
      concurrency: 4,
      tags: [],
      tier: null,
      baseline: { kind: "auto" },
      baselineRuns: 12,
      comment: true,
      commentKey: "llm-tool-test",
      failOn: { kind: "regression" },
      gateMetrics: [],
      toleranceGates: {},
      maxCostUsd: null,
      artifactName: "llm-tool-test-report",
      workingDirectory: ".",
      githubToken: "ghs_token",
      sandbox: null,
      sandboxSetup: true,
      shard: null,
      alpha: 0.05,
      forkMode: "replay",
      modelTimeoutMs: undefined,
    });
  });

  it("reads every input's valid forms", async () => {
    const settings = await readWith({
      scenarios: "suite/a.yaml\n  suite/b/**/*.yaml , data.jsonl\n",
      "anthropic-api-key": "  sk-ant-x  ",
      model: "claude-sonnet-4-5",
      "judge-model": "claude-haiku-4-5",
      agent: "Oracle",
      trials: "5",
      "extra-trials": "0",
      concurrency: "16",
      tags: "smoke, json  files",
      tier: "0",
      baseline: "NONE",
      "baseline-runs": "2",
      comment: "False",
      "comment-key": "nightly.v2",
      "fail-on": "pass-rate < 0.8",
      "gate-metrics": "error_rate, help_invocations",
      "tolerance-gates": "input_tokens:+20%,\n cost_usd:+12.5%",
      "max-cost-usd": "2.50",
      "working-directory": "tools/cli",
      "base-url": " https://gateway.example.com/anthropic ",
      sandbox: "bwrap",
      shard: "2 / 4",
      mode: "merge",
      alpha: "0.01",
    });
    expect(settings).toMatchObject({
      scenarios: ["suite/a.yaml", "suite/b/**/*.yaml", "data.jsonl"],
      apiKey: "sk-ant-x",
      model: "claude-sonnet-4-5",
      judgeModel: "claude-haiku-4-5",
      agent: "oracle",
      trials: 5,
      extraTrials: 0,
      concurrency: 16,
      tags: ["smoke", "json", "files"],
      tier: 0,
      baseline: { kind: "none" },
      baselineRuns: 2,
      comment: false,
      commentKey: "nightly.v2",
      failOn: { kind: "pass_rate_below", threshold: 0.8 },
      gateMetrics: ["error_rate", "help_invocations"],
      toleranceGates: { input_tokens: 0.2, cost_usd: 0.125 },
      maxCostUsd: 2.5,
      artifactName: "llm-tool-test-report-nightly.v2",
      workingDirectory: "tools/cli",
      baseURL: "https://gateway.example.com/anthropic",
      sandbox: "bwrap",
      shard: { index: 2, count: 4 },
      mode: "merge",
      alpha: 0.01,
    });
    expect((await readWith({ baseline: "reports/main/report.json" })).baseline).toEqual({
      kind: "path",
      path: "reports/main/report.json",
    });
    expect((await readWith({ comment: "TRUE" })).comment).toBe(true);
    expect((await readWith({ "artifact-name": "my report" })).artifactName).toBe("my report");
    expect((await readWith({ scenarios: " \n , " })).scenarios).toEqual(["scenarios"]);
  });

  it.each([
    [{ trials: "x" }, 'input "trials" must be a whole number >= 1, got "x"'],
    [{ trials: "0" }, 'input "trials" must be a whole number >= 1, got "0"'],
    [{ trials: "1.5" }, 'input "trials" must be a whole number >= 1, got "1.5"'],
    [{ trials: "-2" }, 'input "trials" must be a whole number >= 1, got "-2"'],
    [
      { trials: "99999999999999999999" },
      'input "trials" must be a whole number >= 1, got "99999999999999999999"',
    ],
    [{ "extra-trials": "-1" }, 'input "extra-trials" must be a whole number >= 0, got "-1"'],
    [{ "baseline-runs": "0" }, 'input "baseline-runs" must be a whole number >= 1, got "0"'],
    [{ concurrency: "0" }, 'input "concurrency" must be a whole number >= 1, got "0"'],
    [{ concurrency: "four" }, 'input "concurrency" must be a whole number >= 1, got "four"'],
    [{ tier: "-1" }, 'input "tier" must be a whole number >= 0, got "-1"'],
    [{ tier: "high" }, 'input "tier" must be a whole number >= 0, got "high"'],
    [{ agent: "gpt" }, `input "agent": unknown agent "gpt"; expected one of: ${AGENT_NAMES.join(", ")}`],
    [
      { agent: "command" },
      'input "agent-command" is required with "agent: command": the command template, e.g. "my-agent --model {model} --task {prompt}"',
    ],
    [
      { agent: "oracle", "agent-command": "my-agent {prompt}" },
      'input "agent-command" is only used with "agent: command" (agent is "oracle"), got "my-agent {prompt}"',
    ],
    [
      { "base-url": "gateway.example.com" },
      'input "base-url" must be an http:// or https:// URL (e.g. https://gateway.example.com/anthropic), got "gateway.example.com"',
    ],
    [
      { "base-url": "ftp://gateway.example.com" },
      'input "base-url" must be an http:// or https:// URL (e.g. https://gateway.example.com/anthropic), got "ftp://gateway.example.com"',
    ],
    [{ comment: "yes" }, 'input "comment" must be true or false, got "yes"'],
    [{ comment: "1" }, 'input "comment" must be true or false, got "1"'],
    [
      { "fail-on": "always" },
      'input "fail-on": must be regression, outcome, never or pass-rate<X with X in (0, 1] (e.g. pass-rate<0.8), got "always"',
    ],
    [
      { "gate-metrics": "cost_usd" },
      'input "gate-metrics": cost_usd is descriptive (tokens, cost, duration and turns are not tested like layer-1 metrics); name a layer-1 metric such as error_rate, or give cost, tokens or turns a tolerance (tolerance-gates, e.g. cost_usd:+20%)',
    ],
    [
      { "tolerance-gates": "input_tokens:+20%, turns+5%" },
      'input "tolerance-gates": expected METRIC:+N% (e.g. input_tokens:+20%), got "turns+5%"',
    ],
    [
      { "max-cost-usd": "$5" },
      'input "max-cost-usd" must be a number of US dollars > 0 (or empty for no cap), got "$5"',
    ],
    [
      { "max-cost-usd": "0" },
      'input "max-cost-usd" must be a number of US dollars > 0 (or empty for no cap), got "0"',
    ],
    [
      { "max-cost-usd": "-1" },
      'input "max-cost-usd" must be a number of US dollars > 0 (or empty for no cap), got "-1"',
    ],
    [
      { "comment-key": "my key" },
      `input "comment-key" must be 1-100 letters, digits, '.', '_' or '-', got "my key"`,
    ],
    [
      { "comment-key": "x-->" },
      `input "comment-key" must be 1-100 letters, digits, '.', '_' or '-', got "x-->"`,
    ],
    [
      { "artifact-name": "a/b" },
      'input "artifact-name" must not contain any of " \' : < > | * ? \\ / or a newline (at most 200 characters), got "a/b"',
    ],
    [
      { "artifact-name": "what?" },
      'input "artifact-name" must not contain any of " \' : < > | * ? \\ / or a newline (at most 200 characters), got "what?"',
    ],
    [{ sandbox: "docker" }, 'input "sandbox" must be one of "auto", "local", "bwrap", got "docker"'],
    [{ shard: "3" }, 'input "shard" must be "i/n" with 1 <= i <= n (e.g. "2/4"), got "3"'],
    [{ shard: "0/4" }, 'input "shard" must be "i/n" with 1 <= i <= n (e.g. "2/4"), got "0/4"'],
    [{ shard: "5/4" }, 'input "shard" must be "i/n" with 1 <= i <= n (e.g. "2/4"), got "5/4"'],
    [{ shard: "1/0" }, 'input "shard" must be "i/n" with 1 <= i <= n (e.g. "2/4"), got "1/0"'],
    [{ mode: "report" }, 'input "mode" must be one of "run", "merge", "post-fork-comment", got "report"'],
    [{ alpha: "0" }, 'input "alpha" must be a number between 0 and 1 (exclusive), got "0"'],
    [{ alpha: "1" }, 'input "alpha" must be a number between 0 and 1 (exclusive), got "1"'],
    [{ alpha: "5%" }, 'input "alpha" must be a number between 0 and 1 (exclusive), got "5%"'],
  ])("rejects %o", async (inputs, message) => {
    const error = await errorFor(inputs);
    expect(error.message).toBe(message);
  });

  it("accepts every agent of the registry, the command agent with its template", async () => {
    for (const name of AGENT_NAMES) {
      const inputs: Record<string, string> = { agent: name };
      if (name === "command") inputs["agent-command"] = "my-agent {prompt}";
      expect((await readWith(inputs)).agent).toBe(name);
    }
    expect(
      await readWith({ agent: "Command", "agent-command": "  my-agent --task {prompt} " }),
    ).toMatchObject({
      agent: "command",
      agentCommand: "my-agent --task {prompt}",
    });
    expect((await readWith({ "base-url": "http://127.0.0.1:8080" })).baseURL).toBe("http://127.0.0.1:8080");
  });

  it("reads model-timeout as a duration, empty for the default", async () => {
    expect((await readWith({})).modelTimeoutMs).toBeUndefined();
    expect((await readWith({ "model-timeout": "3m" })).modelTimeoutMs).toBe(180_000);
    expect((await errorFor({ "model-timeout": "0" })).message).toBe(
      'input "model-timeout" must be a duration such as "120s" or "3m", got "0"',
    );
  });

  it("reads models as the CLI's repeated --model: two or more make a matrix, one is the model", async () => {
    expect(
      await readWith({ models: "claude-haiku-4-5, openai:gpt-5-mini\nopenai:gpt-5-mini\n" }),
    ).toMatchObject({
      model: "claude-haiku-4-5",
      models: ["claude-haiku-4-5", "openai:gpt-5-mini"],
    });
    expect(await readWith({ models: " openai:gpt-5.2 " })).toMatchObject({
      model: "openai:gpt-5.2",
      models: [],
    });
    expect(await readWith({ model: "openai:gpt-5.2" })).toMatchObject({
      model: "openai:gpt-5.2",
      models: [],
    });
    // `model` keeps its default under `models`; a model of its own beside them is ambiguous.
    expect((await errorFor({ model: "claude-sonnet-4-5", models: "a,b" })).message).toBe(
      'input "models" and input "model" ("claude-sonnet-4-5") are both given: use one of them, got "a,b"',
    );
    expect((await errorFor({ models: "claude-haiku-4-5, opnai:gpt-5" })).message).toMatch(
      /^input "models": unknown provider "opnai" in model id "opnai:gpt-5"; did you mean "openai:gpt-5"\?/,
    );
    expect((await errorFor({ model: "gemini:pro" })).message).toMatch(
      /^input "model": unknown provider "gemini"/,
    );
  });

  it("reads the Gemini key for the gemini-cli agent", async () => {
    expect(await readWith({ agent: "gemini-cli", "gemini-api-key": " AIza-x " })).toMatchObject({
      agent: "gemini-cli",
      geminiApiKey: "AIza-x",
    });
  });

  it("reads the OpenAI key, base URL and API, and fork-mode", async () => {
    expect(
      await readWith({
        "openai-api-key": " sk-openai-x ",
        "openai-base-url": "http://127.0.0.1:11434/v1",
        "openai-api": "Responses",
        "fork-mode": "SKIP",
      }),
    ).toMatchObject({
      openaiApiKey: "sk-openai-x",
      openaiBaseURL: "http://127.0.0.1:11434/v1",
      openaiApi: "responses",
      forkMode: "skip",
    });
    expect((await errorFor({ "openai-base-url": "localhost:11434" })).message).toBe(
      'input "openai-base-url" must be an http:// or https:// URL (e.g. http://localhost:11434/v1), got "localhost:11434"',
    );
    expect((await errorFor({ "openai-api": "completions" })).message).toBe(
      'input "openai-api" must be one of "auto", "chat", "responses", got "completions"',
    );
    expect((await errorFor({ "fork-mode": "run" })).message).toBe(
      'input "fork-mode" must be one of "replay", "skip", got "run"',
    );
  });

  it("reads gemini-base-url as the CLI's --gemini-base-url: an http(s) URL for the Gemini API", async () => {
    expect(
      await readWith({ agent: "gemini-cli", "gemini-base-url": " https://gateway.example.com/gemini " }),
    ).toMatchObject({ geminiBaseURL: "https://gateway.example.com/gemini", agentEndpoints: {} });
    // Only Gemini's: the other APIs' base URLs stay unset.
    expect(await readWith({ "gemini-base-url": "http://127.0.0.1:8080" })).toMatchObject({
      geminiBaseURL: "http://127.0.0.1:8080",
      baseURL: null,
      openaiBaseURL: null,
    });
    for (const bad of ["generativelanguage.googleapis.com", "ftp://gateway.example.com"]) {
      expect((await errorFor({ "gemini-base-url": bad })).message).toBe(
        `input "gemini-base-url" must be an http:// or https:// URL (e.g. https://gateway.example.com/gemini), got "${bad}"`,
      );
    }
  });

  it("reads bashkit-home as the CLI's --bashkit-home: a layout, current or a date, as the layout's name", async () => {
    for (const layout of ["bashkit-home-unset", "bashkit-home-missing", "bashkit-home-created"]) {
      expect((await readWith({ "bashkit-home": layout })).bashkitHome).toBe(layout);
    }
    expect((await readWith({ "bashkit-home": " current " })).bashkitHome).toBe("bashkit-home-created");
    expect((await readWith({ "bashkit-home": "2026-02-09" })).bashkitHome).toBe("bashkit-home-unset");
    expect((await readWith({ "bashkit-home": "2026-05-26" })).bashkitHome).toBe("bashkit-home-missing");
    // The day a change landed: before it (a day alone is its start), and the moment after.
    expect((await readWith({ "bashkit-home": "2026-06-28" })).bashkitHome).toBe("bashkit-home-missing");
    expect((await readWith({ "bashkit-home": "2026-06-28T09:43:23Z" })).bashkitHome).toBe(
      "bashkit-home-created",
    );
    for (const bad of ["home-eval", "Current", "2026-02-30", "yesterday"]) {
      const error = await errorFor({ "bashkit-home": bad });
      expect(error.message).toBe(
        `input "bashkit-home": expected current, bashkit-home-unset, bashkit-home-missing, bashkit-home-created, or a date such as 2026-05-26 or 2026-05-26T12:00Z (the bashkit at that moment, UTC; a day alone is its start), found "${bad}"`,
      );
      expect(error.where).toBe('input "bashkit-home"');
    }
  });

  it("derives the artifact name from the comment key", () => {
    expect(deriveArtifactName("llm-tool-test")).toBe("llm-tool-test-report");
    expect(deriveArtifactName("docs")).toBe("llm-tool-test-report-docs");
  });
});

describe("an agent matrix from the action's inputs", () => {
  it("reads several agents, the models and base URLs given to one of them, and the run's for the others", async () => {
    const settings = await readWith({
      agent: "anthropic, codex\ngemini-cli",
      models: "claude-haiku-4-5\ncodex=openai:gpt-5.2\ngemini-cli=gemini-2.5-flash",
      "base-url": "https://gateway.example.com/anthropic",
      "openai-base-url": "codex=http://127.0.0.1:8080/v1",
      "gemini-base-url": "gemini-cli=https://gateway.example.com/gemini",
    });
    expect(settings).toMatchObject({
      agent: "anthropic",
      agents: ["anthropic", "codex", "gemini-cli"],
      model: "claude-haiku-4-5",
      models: [],
      agentModels: { codex: ["openai:gpt-5.2"], "gemini-cli": ["gemini-2.5-flash"] },
      baseURL: "https://gateway.example.com/anthropic",
      openaiBaseURL: null,
      geminiBaseURL: null,
      agentEndpoints: {
        codex: { openai: "http://127.0.0.1:8080/v1" },
        "gemini-cli": { gemini: "https://gateway.example.com/gemini" },
      },
    });
  });

  it("gives an unscoped gemini-base-url to every agent that calls the Gemini API, beside one agent's own", async () => {
    expect(
      await readWith({
        agent: "gemini-cli, anthropic",
        "gemini-base-url": "https://gateway.example.com/gemini\nanthropic=http://127.0.0.1:1",
      }).catch((e: unknown) => (e as Error).message),
    ).toBe(
      'input "gemini-base-url" anthropic=http://127.0.0.1:1: the anthropic agent does not call this API; its base URL is input "base-url" anthropic=URL or input "openai-base-url" anthropic=URL',
    );
    expect(
      await readWith({
        agent: "gemini-cli, oracle",
        "gemini-base-url": "https://gateway.example.com/gemini",
      }),
    ).toMatchObject({ geminiBaseURL: "https://gateway.example.com/gemini", agentEndpoints: {} });
  });

  it("takes one agent's own values as the run's when it runs alone", async () => {
    expect(
      await readWith({
        agent: "codex",
        models: "codex=openai:gpt-5.2",
        "openai-base-url": "codex=http://127.0.0.1:1/v1",
      }),
    ).toMatchObject({
      agents: [],
      model: "openai:gpt-5.2",
      agentModels: {},
      openaiBaseURL: "http://127.0.0.1:1/v1",
    });
    expect(
      await readWith({ agent: "gemini-cli", "gemini-base-url": "gemini-cli=http://127.0.0.1:2" }),
    ).toMatchObject({ agents: [], geminiBaseURL: "http://127.0.0.1:2", agentEndpoints: {} });
  });

  it.each([
    [
      { agent: "anthropic,claude-code", models: "codex=openai:gpt-5.2" },
      `input "models" codex=openai:gpt-5.2: codex is not an agent of this run (anthropic, claude-code); add codex to the run's agents or drop the value`,
    ],
    [
      { agent: "anthropic,codex", "base-url": "codex=https://gateway.example.com" },
      'input "base-url" codex=https://gateway.example.com: the codex agent does not call this API; its base URL is input "openai-base-url" codex=URL',
    ],
    [
      { agent: "anthropic,gemini-cli", "base-url": "gemini-cli=https://gateway.example.com" },
      'input "base-url" gemini-cli=https://gateway.example.com: the gemini-cli agent does not call this API; its base URL is input "gemini-base-url" gemini-cli=URL',
    ],
    [
      { agent: "codex,gemini-cli", "gemini-base-url": "codex=https://gateway.example.com" },
      'input "gemini-base-url" codex=https://gateway.example.com: the codex agent does not call this API; its base URL is input "openai-base-url" codex=URL',
    ],
    [
      { agent: "anthropic,claude-code", "gemini-base-url": "gemini-cli=https://gateway.example.com" },
      `input "gemini-base-url" gemini-cli=https://gateway.example.com: gemini-cli is not an agent of this run (anthropic, claude-code); add gemini-cli to the run's agents or drop the value`,
    ],
    [
      { agent: "anthropic,gemini-cli", "gemini-base-url": "gemni-cli=https://gateway.example.com" },
      'input "gemini-base-url" gemni-cli=https://gateway.example.com: unknown agent "gemni-cli" (did you mean "gemini-cli"?)',
    ],
    [
      {
        agent: "anthropic,gemini-cli",
        "gemini-base-url": "gemini-cli=https://a.example.com\ngemini-cli=https://b.example.com",
      },
      'input "gemini-base-url" is given twice for gemini-cli: give it once',
    ],
    [
      { agent: "anthropic,gemini-cli", "gemini-base-url": "https://a.example.com\nhttps://b.example.com" },
      'input "gemini-base-url" is given twice without an agent: give it once for every agent, or once per agent as input "gemini-base-url" AGENT=URL',
    ],
    [
      { agent: "gemini-cli", "gemini-base-url": "https://a.example.com\ngemini-cli=https://b.example.com" },
      'input "gemini-base-url" is given twice for gemini-cli (with and without gemini-cli=): give it once',
    ],
    [
      { agent: "anthropic,gemini-cli", "gemini-base-url": "gemini-cli=gateway.example.com" },
      'input "gemini-base-url" must be an http:// or https:// URL (e.g. https://gateway.example.com/gemini), got "gateway.example.com"',
    ],
    [
      { agent: "anthropic,claude-code", models: "claude-code=mistral:large" },
      'input "models": unknown provider',
    ],
    [
      { agent: "oracle,null", "agent-command": "my-agent {prompt}" },
      'input "agent-command" is only used with "agent: command"',
    ],
  ])("%j is a configuration error naming the input", async (inputs, message) => {
    expect((await errorFor(inputs)).message).toContain(message);
  });
});
