/**
 * Model prices for cost_usd, in USD per million tokens. A user can override or extend the table
 * with a JSON or YAML file: `{ "<model id>": { input, output, cache_read?, cache_write? } }`.
 * Keys are model ids as `--model` takes them: `openai:gpt-5.2`, and bare ids for Anthropic's
 * models (`claude-haiku-4-5`, or `anthropic:claude-haiku-4-5`). A price only ever applies to its
 * own provider's models. An unknown model costs null ("not known"), never 0.
 */
import { readFile } from "node:fs/promises";
import { ConfigError, describeError } from "../errors.js";
import type { ModelPrice } from "../results/types.js";
import type { TokenUsage } from "../transcript/events.js";
import { type ProviderName, parseModelId, providerOfModel } from "./provider.js";

export type PriceTable = Record<string, ModelPrice>;

/**
 * The cache prices a provider's models have when only input and output are given. Anthropic:
 * cache reads 0.1x the input price, 5-minute cache writes 1.25x. OpenAI: cached input 0.1x (the
 * GPT-5 family's discount; older models' is smaller, so give theirs), and cache writes at the
 * input price (OpenAI reports none and charges nothing extra; a gateway that reports them is
 * charged as for input).
 */
function priceFrom(input: number, output: number, provider: ProviderName = "anthropic"): ModelPrice {
  if (provider === "openai") return openAiPrice(input, output, round(input * 0.1));
  return { input, output, cache_read: round(input * 0.1), cache_write: round(input * 1.25) };
}

/** An OpenAI price with its published cached-input price (USD per million tokens); writes as input. */
function openAiPrice(input: number, output: number, cachedInput: number = input): ModelPrice {
  return { input, output, cache_read: cachedInput, cache_write: input };
}

/** When the built-in prices were last checked against each provider's price list. */
export const PRICE_TABLE_CHECKED_ON: Readonly<Record<ProviderName, string>> = {
  anthropic: "2026-11-22",
  openai: "2025-12-11",
};

/**
 * Anthropic list prices, checked on 2026-11-22 against
 * https://platform.claude.com/docs/en/about-claude/pricing ("Model pricing"; 5m cache writes,
 * cache hits). Opus 4.5 and later cost $5/$25; Opus 4 and 4.1 $15/$75; Sonnet 4.x $3/$15;
 * Haiku 4.5 $1/$5. Keys are model ids or aliases; dated ids (`-20251001`) match by prefix.
 */
export const DEFAULT_PRICE_TABLE: Readonly<PriceTable> = Object.freeze({
  "claude-opus-4-8": priceFrom(5, 25),
  "claude-opus-4-7": priceFrom(5, 25),
  "claude-opus-4-6": priceFrom(5, 25),
  "claude-opus-4-5": priceFrom(5, 25),
  "claude-opus-4-1": priceFrom(15, 75),
  "claude-opus-4-0": priceFrom(15, 75),
  "claude-opus-4": priceFrom(15, 75),
  "claude-sonnet-4-6": priceFrom(3, 15),
  "claude-sonnet-4-5": priceFrom(3, 15),
  "claude-sonnet-4-0": priceFrom(3, 15),
  "claude-sonnet-4": priceFrom(3, 15),
  "claude-haiku-4-5": priceFrom(1, 5),
  // OpenAI list prices as published on https://openai.com/api/pricing/ (Standard tier: input,
  // cached input, output), as known on 2025-12-11 and not re-checked since: check them before
  // trusting a budget. Models without a cached-input price are charged their input price for it.
  "openai:gpt-5.2": openAiPrice(1.75, 14, 0.175),
  "openai:gpt-5.2-pro": openAiPrice(21, 168),
  "openai:gpt-5.1": openAiPrice(1.25, 10, 0.125),
  "openai:gpt-5.1-codex": openAiPrice(1.25, 10, 0.125),
  "openai:gpt-5.1-codex-max": openAiPrice(1.25, 10, 0.125),
  "openai:gpt-5.1-codex-mini": openAiPrice(0.25, 2, 0.025),
  "openai:gpt-5": openAiPrice(1.25, 10, 0.125),
  "openai:gpt-5-codex": openAiPrice(1.25, 10, 0.125),
  "openai:gpt-5-pro": openAiPrice(15, 120),
  "openai:gpt-5-mini": openAiPrice(0.25, 2, 0.025),
  "openai:gpt-5-nano": openAiPrice(0.05, 0.4, 0.005),
  "openai:gpt-4.1": openAiPrice(2, 8, 0.5),
  "openai:gpt-4.1-mini": openAiPrice(0.4, 1.6, 0.1),
  "openai:gpt-4.1-nano": openAiPrice(0.1, 0.4, 0.025),
  "openai:gpt-4o": openAiPrice(2.5, 10, 1.25),
  "openai:gpt-4o-mini": openAiPrice(0.15, 0.6, 0.075),
  "openai:o3": openAiPrice(2, 8, 0.5),
  "openai:o3-mini": openAiPrice(1.1, 4.4, 0.55),
  "openai:o4-mini": openAiPrice(1.1, 4.4, 0.275),
});

/**
 * The price of `model`: the exact id first, then, among the keys of the same provider, the longest
 * one the id starts with, as long as what follows is a date, a version tag or a provider suffix
 * (`-20250929`, `-2025-08-07`, `-v1:0`, `@...`), not another minor version or size:
 * `claude-opus-4-9` must not be priced as `claude-opus-4`, nor `gpt-5-mini` as `gpt-5`. Path and
 * Bedrock prefixes (`anthropic/`, `us.anthropic.`) are ignored.
 */
export function lookupPrice(
  table: Readonly<PriceTable>,
  model: string | null | undefined,
): ModelPrice | null {
  if (!model) return null;
  const exact = table[model];
  if (exact) return exact;
  const wanted = providerOfModel(model);
  if (!wanted) return null;
  const normalized = normalizeModelId(wanted.model);
  let best: string | null = null;
  let bestLength = -1;
  for (const key of Object.keys(table)) {
    const keyed = providerOfModel(key);
    if (!keyed || keyed.provider !== wanted.provider) continue;
    const normalizedKey = normalizeModelId(keyed.model);
    if (!normalized.startsWith(normalizedKey)) continue;
    if (!isVersionSuffix(normalized.slice(normalizedKey.length))) continue;
    if (normalizedKey.length > bestLength) {
      best = key;
      bestLength = normalizedKey.length;
    }
  }
  return best === null ? null : (table[best] ?? null);
}

/** USD for the given usage at the given price (per million tokens). */
export function computeCost(usage: TokenUsage, price: ModelPrice): number {
  return (
    (usage.input_tokens * price.input +
      usage.output_tokens * price.output +
      usage.cache_read_tokens * price.cache_read +
      usage.cache_write_tokens * price.cache_write) /
    1_000_000
  );
}

/** A YAML parser returning plain data; default: the scenario loader's (the only `yaml` import). */
export type ParseYaml = (text: string, file: string) => unknown;

/**
 * Reads a price file (JSON, or YAML for `.yaml`/`.yml`) and merges it over the defaults.
 * Errors are ConfigErrors naming the file and the field.
 */
export async function loadPriceTable(
  file: string,
  options: { base?: Readonly<PriceTable>; parseYaml: ParseYaml },
): Promise<PriceTable> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why = code === "ENOENT" ? "the file does not exist" : `cannot read it (${String(code ?? error)})`;
    throw new ConfigError(`${why}; pass a JSON file mapping model ids to prices`, file);
  }
  let data: unknown;
  if (/\.ya?ml$/i.test(file)) {
    // The caller brings the YAML parser: scenario/ owns the yaml package.
    const parseYaml = options.parseYaml;
    try {
      data = parseYaml(text, file);
    } catch (error) {
      if (error instanceof ConfigError) throw error;
      throw new ConfigError(`not valid YAML: ${describeError(error)}`, file);
    }
  } else {
    try {
      data = JSON.parse(text);
    } catch (error) {
      throw new ConfigError(`not valid JSON: ${describeError(error)}`, file);
    }
  }
  return mergePriceTable(options.base ?? DEFAULT_PRICE_TABLE, parsePriceTable(data, file));
}

/** Validates price data: `{ model: { input, output, cache_read?, cache_write? } }`. */
export function parsePriceTable(data: unknown, file: string): PriceTable {
  if (!isRecord(data)) {
    throw new ConfigError(
      'expected an object mapping model ids to prices, e.g. {"claude-haiku-4-5": {"input": 1, "output": 5}}',
      file,
    );
  }
  const table: PriceTable = {};
  for (const [model, entry] of Object.entries(data)) {
    // A key with an unknown provider prefix would never be looked up: say so now.
    const { provider } = parseModelId(model, file);
    if (!isRecord(entry)) {
      throw new ConfigError(
        `${model}: expected an object with input and output prices (USD per million tokens)`,
        file,
      );
    }
    for (const key of Object.keys(entry)) {
      if (!PRICE_FIELDS.includes(key)) {
        throw new ConfigError(`${model}.${key}: unknown field; allowed: ${PRICE_FIELDS.join(", ")}`, file);
      }
    }
    const input = readPrice(entry, "input", model, file, true) as number;
    const output = readPrice(entry, "output", model, file, true) as number;
    const defaults = priceFrom(input, output, provider);
    table[model] = {
      input,
      output,
      cache_read: readPrice(entry, "cache_read", model, file, false) ?? defaults.cache_read,
      cache_write: readPrice(entry, "cache_write", model, file, false) ?? defaults.cache_write,
    };
  }
  return table;
}

export function mergePriceTable(base: Readonly<PriceTable>, overrides: Readonly<PriceTable>): PriceTable {
  return { ...base, ...overrides };
}

const PRICE_FIELDS = ["input", "output", "cache_read", "cache_write"];

function readPrice(
  entry: Record<string, unknown>,
  field: string,
  model: string,
  file: string,
  required: boolean,
): number | undefined {
  const value = entry[field];
  if (value === undefined) {
    if (required) throw new ConfigError(`${model}.${field}: missing (USD per million tokens)`, file);
    return undefined;
  }
  if (typeof value !== "number" || !Number.isFinite(value) || value < 0) {
    throw new ConfigError(
      `${model}.${field}: expected a non-negative number of USD per million tokens, got ${JSON.stringify(value)}`,
      file,
    );
  }
  return value;
}

function normalizeModelId(model: string): string {
  let id = model.trim().toLowerCase();
  const slash = id.lastIndexOf("/");
  if (slash !== -1) id = id.slice(slash + 1);
  const bedrock = id.indexOf("anthropic.");
  if (bedrock !== -1) id = id.slice(bedrock + "anthropic.".length);
  return id.replaceAll("@", "-");
}

/** What may follow a table key in a model id: nothing, a date (Anthropic's or OpenAI's), `latest`, a `v1`-style tag, `:`. */
function isVersionSuffix(rest: string): boolean {
  if (rest === "") return true;
  if (rest.startsWith(":") || rest.startsWith("[")) return true;
  return /^-(\d{8}|\d{4}-\d{2}-\d{2}|latest|v\d)/.test(rest);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function round(value: number): number {
  return Math.round(value * 1e6) / 1e6;
}
