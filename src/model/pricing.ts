/**
 * Model prices for cost_usd, in USD per million tokens. A user can override or extend the table
 * with a JSON or YAML file: `{ "<model id>": { input, output, cache_read?, cache_write? } }`.
 * An unknown model costs null ("not known"), never 0.
 */
import { readFile } from "node:fs/promises";
import { ConfigError, describeError } from "../errors.js";
import type { ModelPrice } from "../results/types.js";
import type { TokenUsage } from "../transcript/events.js";

export type PriceTable = Record<string, ModelPrice>;

/** Cache reads cost 0.1x the input price; 5-minute cache writes 1.25x (Anthropic's multipliers). */
function priceFrom(input: number, output: number): ModelPrice {
  return { input, output, cache_read: round(input * 0.1), cache_write: round(input * 1.25) };
}

/** When DEFAULT_PRICE_TABLE was last checked against Anthropic's price list. */
export const PRICE_TABLE_CHECKED_ON = "2026-11-22";

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
});

/**
 * The price of `model`: the exact id first, then the longest table key the id starts with, as long
 * as what follows is a date, a version tag or a provider suffix (`-20250929`, `-v1:0`, `@...`),
 * not another minor version: `claude-opus-4-9` must not be priced as `claude-opus-4`.
 * Provider prefixes (`anthropic/`, `us.anthropic.`) are ignored.
 */
export function lookupPrice(
  table: Readonly<PriceTable>,
  model: string | null | undefined,
): ModelPrice | null {
  if (!model) return null;
  const exact = table[model];
  if (exact) return exact;
  const normalized = normalizeModelId(model);
  const normalizedExact = table[normalized];
  if (normalizedExact) return normalizedExact;
  let best: string | null = null;
  for (const key of Object.keys(table)) {
    const normalizedKey = key.toLowerCase();
    if (!normalized.startsWith(normalizedKey)) continue;
    if (!isVersionSuffix(normalized.slice(normalizedKey.length))) continue;
    if (best === null || key.length > best.length) best = key;
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
    const defaults = priceFrom(input, output);
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

/** What may follow a table key in a model id: nothing, a date, `latest`, a `v1`-style tag, `:`. */
function isVersionSuffix(rest: string): boolean {
  if (rest === "") return true;
  if (rest.startsWith(":") || rest.startsWith("[")) return true;
  return /^-(\d{8}|latest|v\d)/.test(rest);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function round(value: number): number {
  return Math.round(value * 1e6) / 1e6;
}
