/**
 * A scenario's two hashes. Paths are made relative to the scenario's folder and keys sorted, so the
 * same checkout hashes the same on every machine.
 *
 * - `contentHash`: sha256 over the normalised scenario and every file it refers to (fixture tree,
 *   guidance, variants' guidance, rubric). A resumed run and merged shards must agree on it.
 * - `measurementHash`: the same without the treatment — what a pull request is meant to change
 *   (the guidance files and their modes; the tool's build is in neither) — and without the labels
 *   that cannot change an outcome (description, tags, category, tier, trials). Baselines are pooled
 *   on it, so a PR that edits only AGENTS.md is compared with the base branch's runs.
 */
import { createHash } from "node:crypto";
import { lstat, readdir, readFile, readlink } from "node:fs/promises";
import path from "node:path";
import { computeTreatment, type TreatmentCache } from "./treatment.js";
import type { Scenario, UnhashedScenario } from "./types.js";

/** The scenario with its hashes and treatment (`cache`: shared by the scenarios of one load). */
export async function hashScenario(scenario: UnhashedScenario, cache?: TreatmentCache): Promise<Scenario> {
  const [contentHash, measurementHash, treatment] = await Promise.all([
    computeContentHash(scenario),
    computeMeasurementHash(scenario),
    computeTreatment(scenario, cache),
  ]);
  return { ...scenario, contentHash, measurementHash, treatment };
}

/**
 * What defines the measurement: the task, system prompt, inline files, fixture tree, setup, gates,
 * rubric and judge settings, limits, target (binary name or path, env, command pattern), variants'
 * names and env, sandbox and machine, the oracle's solution.
 */
async function computeMeasurementHash(scenario: UnhashedScenario): Promise<string> {
  const base = path.dirname(scenario.source.file);
  const relative = (file: string): string => path.relative(base, file).split(path.sep).join("/");
  const {
    source: _source,
    guidance: _guidance,
    description: _description,
    tags: _tags,
    category: _category,
    tier: _tier,
    trials: _trials,
    // A setting of the decision: adding a tolerance gate does not change what the base runs measured.
    toleranceGates: _toleranceGates,
    ...rest
  } = scenario;
  const normalized = JSON.parse(JSON.stringify(rest)) as Record<string, unknown>;
  if (scenario.fixture) normalized.fixture = relative(scenario.fixture);
  normalized.variants = scenario.variants.map(({ guidance: _variantGuidance, ...variant }) => variant);
  const binary = scenario.target.binary;
  if (binary && path.isAbsolute(binary)) normalized.target = { ...scenario.target, binary: relative(binary) };
  const judge = scenario.evaluation.judge;
  if (judge) {
    normalized.evaluation = {
      ...scenario.evaluation,
      judge: { ...judge, rubric: { ...judge.rubric, file: relative(judge.rubric.file) } },
    };
  }
  const hash = createHash("sha256");
  hash.update(`measurement\0${stringifySorted(normalized)}\0`);
  if (judge) {
    hash.update(`rubric\0${relative(judge.rubric.file)}\0`);
    hash.update(await readFile(judge.rubric.file));
    hash.update("\0");
  }
  if (scenario.fixture) await hashTree(hash, scenario.fixture, "");
  return hash.digest("hex");
}

/** Unchanged since the first versions: reports keep comparing with those of earlier versions. */
async function computeContentHash(scenario: UnhashedScenario): Promise<string> {
  const base = path.dirname(scenario.source.file);
  const relative = (file: string): string => path.relative(base, file).split(path.sep).join("/");
  const { source: _source, ...rest } = scenario;
  const normalized = JSON.parse(JSON.stringify(rest)) as Record<string, unknown>;
  const referenced = new Set<string>();

  const fixture = scenario.fixture;
  if (fixture) normalized.fixture = relative(fixture);
  if (scenario.guidance) {
    normalized.guidance = { ...scenario.guidance, file: relative(scenario.guidance.file) };
    referenced.add(scenario.guidance.file);
  }
  normalized.variants = scenario.variants.map((variant) => {
    if (!variant.guidance) return variant;
    referenced.add(variant.guidance.file);
    return { ...variant, guidance: { ...variant.guidance, file: relative(variant.guidance.file) } };
  });
  const binary = scenario.target.binary;
  if (binary && path.isAbsolute(binary)) normalized.target = { ...scenario.target, binary: relative(binary) };
  const judge = scenario.evaluation.judge;
  if (judge) {
    referenced.add(judge.rubric.file);
    normalized.evaluation = {
      ...scenario.evaluation,
      judge: { ...judge, rubric: { ...judge.rubric, file: relative(judge.rubric.file) } },
    };
  }

  const hash = createHash("sha256");
  hash.update(`scenario\0${stringifySorted(normalized)}\0`);
  for (const file of [...referenced].map((file) => [relative(file), file] as const).sort(compareFirst)) {
    hash.update(`file\0${file[0]}\0`);
    hash.update(await readFile(file[1]));
    hash.update("\0");
  }
  if (fixture) await hashTree(hash, fixture, "");
  return hash.digest("hex");
}

async function hashTree(hash: ReturnType<typeof createHash>, root: string, prefix: string): Promise<void> {
  const names = (await readdir(path.join(root, prefix))).sort();
  for (const name of names) {
    const rel = prefix ? `${prefix}/${name}` : name;
    const full = path.join(root, rel);
    const info = await lstat(full);
    if (info.isSymbolicLink()) {
      hash.update(`link\0${rel}\0${await readlink(full)}\0`);
    } else if (info.isDirectory()) {
      hash.update(`dir\0${rel}\0`);
      await hashTree(hash, root, rel);
    } else if (info.isFile()) {
      // The executable bit matters (a fixture script), the rest of the mode is machine noise.
      hash.update(`fixture\0${rel}\0${info.mode & 0o111 ? "x" : "-"}\0`);
      hash.update(await readFile(full));
      hash.update("\0");
    }
  }
}

function compareFirst(a: readonly [string, string], b: readonly [string, string]): number {
  return a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0;
}

/** JSON with object keys sorted at every level. */
export function stringifySorted(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stringifySorted).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, item]) => item !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${stringifySorted(item)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}
