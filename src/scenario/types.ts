/** A scenario after loading and validation: paths absolute, durations in ms, defaults not yet applied
 * for agent settings (those come from the run options; see `resolveAgentSettings`). */

export type GuidanceMode = "workdir" | "system" | "both";
/** The sandbox a trial really runs in. */
export type SandboxMode = "local" | "bwrap";
/** The sandbox asked for: a mode, or `auto` (bwrap where it works here, else local with a warning). */
export type SandboxSetting = "auto" | SandboxMode;
export type ScenarioFormat = "yaml" | "bashkit-jsonl";

export interface ScenarioSource {
  /** Absolute path of the file the scenario came from. */
  file: string;
  /** 1-based line (JSONL datasets: the task's line; YAML: 1). */
  line: number;
  format: ScenarioFormat;
}

export interface Guidance {
  /** Absolute path of the guidance file (AGENTS.md, a skill...). */
  file: string;
  mode: GuidanceMode;
}

/** One named variant of a scenario: a different guidance file and/or target env/binary. */
export interface Variant {
  name: string;
  guidance?: Guidance;
  /** Extra env for the target (merged over target.env), e.g. a path to another build of the tool. */
  env?: Record<string, string>;
}

export interface Target {
  /** Binary intercepted by the PATH shim (a bare name looked up on PATH, or a path). */
  binary?: string;
  /** Transcript regex fallback; group 1 is the subcommand. */
  commandPattern?: string;
  /**
   * The tool's options that take a value in the next argument (`-f`, `--file`), so that value is
   * not taken for the subcommand (`hledger -f main.journal balance` is `balance`).
   */
  globalOptions?: string[];
  env: Record<string, string>;
}

/** What the bwrap sandbox looks like to the agent; local mode cannot change either. */
export interface MachineProfile {
  /** The sandbox's hostname (default `sandbox`). */
  hostname?: string;
  /** System folders (/usr, /lib...) writable copy-on-write, the changes discarded with the trial
   * (default: bound read-only). */
  writableSystemDirs?: boolean;
  /**
   * Where the agent starts and what HOME is (bashkit datasets: the current bashkit's, see
   * scenario/bashkit-home.ts; a run may give each trial another). Absent: the sandbox's own
   * (the work dir is HOME and cwd, /home/eval in bwrap).
   */
  home?: HomeLayout;
}

/**
 * The agent's working directory and HOME as its commands see them (absolute paths inside the
 * sandbox; local mode puts them under its work dir, as it does a scenario's absolute paths).
 */
export interface HomeLayout {
  /** Its name in reports and options (`bashkit-home-created`...). */
  name: string;
  /** The working directory the agent's commands start in. */
  workDir: string;
  /** HOME; null: not set at all. */
  home: string | null;
  /** Whether HOME is a directory when the agent starts (else only if a scenario file is in it). */
  homeExists: boolean;
  /** The agent's home in /etc/passwd: what `~` names when HOME is not set (bwrap only). */
  passwdHome: string;
}

export interface AgentOverrides {
  model?: string;
  maxTurns?: number;
  timeoutMs?: number;
  commandTimeoutMs?: number;
}

// ---- Gates (layer 2). Field names as written in scenario files. ----
interface GateBase {
  /** Weight in the partial score; default 1. */
  weight: number;
  /** Optional label shown in reports. */
  description?: string;
}
export type JsonPathAssertion =
  | { kind: "exists" }
  | { kind: "equals"; value: unknown }
  | { kind: "contains"; substring: string }
  | { kind: "len"; op: ">=" | "==" | ">" | "<=" | "<"; n: number };

export type GateSpec = GateBase &
  (
    | { type: "command_succeeds"; command: string }
    | { type: "command_output_contains"; command: string; substring: string }
    | { type: "command_output_matches"; command: string; pattern: string }
    | {
        type: "command_json_path";
        command: string;
        path: string;
        assertion: string;
        parsed: JsonPathAssertion;
      }
    | { type: "file_exists"; path: string }
    | { type: "file_contains"; path: string; substring: string }
    | { type: "file_matches"; path: string; pattern: string }
    | { type: "final_answer_contains"; substring: string }
    | { type: "final_answer_matches"; pattern: string }
    | { type: "no_transcript_errors" }
    | { type: "script"; command: string }
    // behaviour gates: judged from the shim's record of the target's calls
    | { type: "forbidden_commands"; subcommands?: string[]; options?: string[]; patterns?: string[] }
    | { type: "max_invocations"; total?: number; subcommands?: Record<string, number> }
    | { type: "no_loops"; repeats?: number }
    // bashkit-eval checks
    | { type: "exit_code"; code: number }
    | { type: "stdout_contains"; substring: string }
    | { type: "stdout_regex"; pattern: string }
    | { type: "stderr_empty" }
    | { type: "dir_exists"; path: string }
    | { type: "file_line_regex"; path: string; pattern: string }
    | { type: "tool_calls_min"; count: number }
    | { type: "tool_calls_max"; count: number }
    | { type: "llm_judge"; prompt: string }
    // a bashkit-eval check of a type this version does not know: fails, as in bashkit-eval
    | { type: "unsupported_check"; check: string }
  );
export type GateType = GateSpec["type"];

export interface RubricCriterion {
  id: string;
  weight: number;
  description: string;
}
export interface Rubric {
  /** Absolute path of the rubric file. */
  file: string;
  criteria: RubricCriterion[];
}

export interface JudgeSpec {
  enabled: boolean;
  rubric: Rubric;
  passThreshold: number;
  model?: string;
}

export interface CompositeWeights {
  gateWeight: number;
  judgeWeight: number;
  interactionWeight: number;
}

export interface Evaluation {
  gates: GateSpec[];
  judge?: JudgeSpec;
  composite?: CompositeWeights;
}

export interface Scenario {
  /** Unique id (`name` in YAML, `id` in bashkit JSONL). */
  id: string;
  description?: string;
  category: string;
  tags: string[];
  tier: number;
  /** The user message given to the agent. */
  task: string;
  /** Extra system prompt (bashkit `system`). */
  system?: string;
  /** Absolute path of a directory copied into the work dir. */
  fixture?: string;
  /** Inline files: path (relative to the work dir, or absolute = inside the sandbox root) -> content. */
  files: Record<string, string>;
  setup: string[];
  guidance?: Guidance;
  variants: Variant[];
  target: Target;
  agent: AgentOverrides;
  /** Oracle solution: one entry = one bash call. */
  solution?: string[];
  evaluation: Evaluation;
  /**
   * Tolerance gates on what a change costs: metric → the largest increase over the base's mean, as
   * a fraction (0.2: +20%). A setting of the decision, not of the measurement (not in measurementHash).
   */
  toleranceGates?: Record<string, number>;
  trials?: number;
  /** Absent: the run's setting (default auto). */
  sandbox?: SandboxSetting;
  /** Network access inside the bwrap sandbox (default false). */
  network?: boolean;
  /** How the bwrap sandbox presents itself besides the scenario's files (bashkit datasets set it). */
  machine?: MachineProfile;
  source: ScenarioSource;
  /** sha256 over the normalised scenario and the contents of every file it refers to. */
  contentHash: string;
  /**
   * sha256 over what defines the measurement: everything but the treatment (guidance files, their
   * modes, the tool's build) and the labels that cannot change an outcome (description, tags,
   * category, tier, trials). Baselines are pooled on it (compare/pool-baselines.ts).
   */
  measurementHash: string;
  /** What a pull request is meant to change: the guidance files and the tool's build, by content. */
  treatment: ScenarioTreatment;
}

/** A scenario before its hashes and treatment are computed (scenario/content-hash.ts). */
export type UnhashedScenario = Omit<Scenario, "contentHash" | "measurementHash" | "treatment">;

/** A file of the treatment: its path relative to the repository root (`/` separated) and its sha256. */
export interface TreatmentFile {
  path: string;
  /** Null when it could not be read as a regular file (not built yet, say). */
  sha256: string | null;
}

export interface TreatmentGuidance extends TreatmentFile {
  mode: GuidanceMode;
}

export interface ScenarioTreatment {
  /** The scenario's own guidance. */
  guidance: TreatmentGuidance | null;
  /** Each variant's guidance by variant name (null: the variant uses the scenario's own). */
  variants: Record<string, TreatmentGuidance | null>;
  /** `target.binary` when it is a file in the repository: the build under test. Null otherwise. */
  tool: TreatmentFile | null;
}
