/**
 * The files `llm-tool-test init` writes, rendered as text. Pure: every value comes in as an
 * argument, so tests can render them without touching the disk.
 */

/** Where editors fetch the published JSON Schemas (the `$id` repository, main branch). */
export const SCHEMA_BASE_URL = "https://raw.githubusercontent.com/llm-tool-test/llm-tool-test/main/schema";
/** The action as a workflow step names it. */
export const ACTION_REF = "llm-tool-test/llm-tool-test@v1";
/** The action inputs the workflow sets (kept in step with action.yml by a test). */
export const WORKFLOW_INPUTS = ["scenarios", "anthropic-api-key", "model", "trials", "fail-on"] as const;

/** A YAML scalar: plain when that reads back as the same string, else double-quoted (JSON is YAML). */
function formatYamlString(value: string): string {
  const plain =
    /^[A-Za-z0-9_./][\w./-]*$/.test(value) && !/^(true|false|null|yes|no|on|off|[-+.\d]+)$/i.test(value);
  return plain ? value : JSON.stringify(value);
}

export interface ScenarioTemplate {
  /** Scenario id. */
  id: string;
  /** The command the agent types (the binary's file name). */
  command: string;
  /** `target.binary` as written: a bare name, or a path relative to the scenario file. */
  binary: string;
  /** The flag the reference solution passes: `--version`, or `--help` when only that works. */
  flag: "--version" | "--help";
  fixture: string;
  rubric: string;
  guidance: string;
  /** What the `$schema` comment names: a path relative to the scenario file, or a URL. */
  schema: string;
}

/** The file the agent writes for the starter task. */
function outputFileFor(flag: ScenarioTemplate["flag"]): string {
  return flag === "--version" ? "version.txt" : "help.txt";
}

export function renderScenario(t: ScenarioTemplate): string {
  const output = outputFileFor(t.flag);
  const task =
    t.flag === "--version"
      ? `Find out which version of ${t.command} is installed here and save what it reports to ${output}.`
      : `Save the built-in help text of ${t.command} to ${output}, so that we can read it later.`;
  return `# yaml-language-server: $schema=${t.schema}
# A first scenario for ${t.command}, written by \`llm-tool-test init\`. It passes as it is: check with
#   npx llm-tool-test validate --oracle <this folder>
# then replace the task, the solution and the gates with a real job your users give an agent.
name: ${t.id}
description: ${t.flag === "--version" ? `Report the installed version of ${t.command}` : `Save the help text of ${t.command}`}
category: getting-started
tags: [smoke]
tier: 1
# The message given to the agent. Say what a user would say; do not give away the commands.
task: |
  ${task}
# Copied into each trial's fresh work dir before the agent starts.
fixture: ${t.fixture}
# The documentation under test, copied into the work dir as AGENTS.md: the built-in agent is shown
# it in its system prompt, agent CLIs (claude-code, codex, gemini-cli, opencode) load it themselves.
guidance:
  file: ${t.guidance}
  mode: workdir
target:
  # Intercepted by a PATH shim that records every invocation (argv, exit code, duration).
  binary: ${formatYamlString(t.binary)}
# The reference solution the oracle agent runs, one bash call per entry. \`validate --oracle\`
# proves that it passes every gate and that an agent doing nothing fails one.
solution:
  - ${t.command} ${t.flag} > ${output}
# Opt-in, against the base-branch runs: fail a pull request whose agents clearly spend more than
# 20% more input tokens here (also cost_usd, output_tokens, turns; docs/scenarios.md).
# tolerance_gates: { input_tokens: "+20%" }
evaluation:
  # Run in the work dir after the agent stops, in order; all must pass.
  gates:
    - type: file_exists
      path: ${output}
    - type: command_succeeds
      description: ${output} is not empty
      command: test -s ${output}
    - type: no_transcript_errors
    # How the agent used the tool, from the shim's record: the same failing call 3 times fails.
    # See also forbidden_commands and max_invocations (docs/scenarios.md, "Behaviour gates").
    - type: no_loops
  # A second model grades the transcript against the rubric. Off so that the oracle agent runs
  # without an API key; set enabled: true once ANTHROPIC_API_KEY is available.
  judge:
    enabled: false
    rubric: ${t.rubric}
    pass_threshold: 0.7
`;
}

/** `schema`: what the `$schema` comment names, a path relative to the rubric file or a URL. */
export function renderRubric(command: string, schema: string): string {
  return `# yaml-language-server: $schema=${schema}
# What the judge scores (each criterion 0 to 1); the weights sum to 1.
criteria:
  - id: task_completion
    weight: 0.5
    description: The agent did what the task asked, and its result is correct and complete.
  - id: command_correctness
    weight: 0.3
    description: The agent used ${command} with valid subcommands and options on the first try.
  - id: efficiency
    weight: 0.2
    description: No unnecessary commands, dead ends or repeated attempts.
`;
}

export function renderGuidance(command: string): string {
  return `# Using ${command}

<!-- The guidance under test. llm-tool-test copies this file into each trial's work dir as
     AGENTS.md (guidance.mode: workdir; mode: system appends it to the system prompt instead), and
     the agent is shown it there as it would be in your repository: the built-in agent in its
     system prompt, an agent CLI as its own context file.
     Write what an agent needs to use ${command} well. To measure a change, add \`variants:\` to a
     scenario, each with its own guidance file. If your repository already has an AGENTS.md,
     point guidance.file at it instead of this stub. -->

- \`${command} --help\` lists the commands and options.
`;
}

export function renderFixtureReadme(): string {
  return `This folder is a fixture: a scenario with \`fixture: fixtures/sample\` starts every trial with a
copy of its contents in the work dir. Put the files your scenarios start from here (a config, a
sample project, data to process), or make one folder per starting state.
`;
}

export interface WorkflowTemplate {
  /** The scenario folder relative to the repository root (POSIX separators). */
  scenarios: string;
  /** The branch whose pushes record the baseline. */
  defaultBranch: string;
  /** The command to have on PATH (for the install comment). */
  command: string;
}

export function renderWorkflow(t: WorkflowTemplate): string {
  return `# Written by \`llm-tool-test init\`. On every pull request an agent works through the scenarios
# in ${t.scenarios}/ and one comment shows how its use of ${t.command} changed against ${t.defaultBranch};
# runs on pushes to ${t.defaultBranch} record the baseline that pull requests are compared with.
name: llm-tool-test

on:
  push:
    branches: [${formatYamlString(t.defaultBranch)}]
  pull_request:

permissions:
  contents: read # check out the repository
  pull-requests: write # post and update the comment
  actions: read # find the base branch's report to compare with

concurrency:
  group: llm-tool-test-\${{ github.ref }}
  # A new push to a pull request cancels its older run; runs on ${t.defaultBranch} (baselines) all finish.
  cancel-in-progress: \${{ github.event_name == 'pull_request' }}

jobs:
  llm-tool-test:
    runs-on: ubuntu-latest
    timeout-minutes: 30
    steps:
      - uses: actions/checkout@v4
      # Build or install your tool here so that \`${t.command}\` is on PATH, for example:
      # - run: npm ci && npm link
      - uses: ${ACTION_REF}
        with:
          scenarios: ${formatYamlString(t.scenarios)}
          # Add the secret under Settings > Secrets and variables > Actions. Pull requests from
          # forks get no secrets: the action then replays the base branch's recorded calls against
          # the PR's build (fork-mode: replay, no model, no key), or skips with fork-mode: skip.
          anthropic-api-key: \${{ secrets.ANTHROPIC_API_KEY }}
          model: claude-haiku-4-5
          trials: 3
          # regression: fail on a regression against the base branch's runs; outcome: on any failed trial
          fail-on: regression
`;
}
