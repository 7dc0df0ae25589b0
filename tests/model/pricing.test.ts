import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConfigError } from "../../src/errors.js";
import {
  computeCost,
  DEFAULT_PRICE_TABLE,
  loadPriceTable,
  lookupPrice,
  parsePriceTable,
} from "../../src/model/pricing.js";
import { parseYamlText } from "../../src/scenario/load.js";

const parseYaml = parseYamlText;

describe("lookupPrice", () => {
  it("finds exact ids, dated ids and provider ids", () => {
    expect(lookupPrice(DEFAULT_PRICE_TABLE, "claude-haiku-4-5")).toEqual({
      input: 1,
      output: 5,
      cache_read: 0.1,
      cache_write: 1.25,
    });
    expect(lookupPrice(DEFAULT_PRICE_TABLE, "claude-haiku-4-5-20251001")?.input).toBe(1);
    expect(lookupPrice(DEFAULT_PRICE_TABLE, "claude-opus-4-5-20251101")?.input).toBe(5);
    expect(lookupPrice(DEFAULT_PRICE_TABLE, "claude-opus-4-1-20250805")?.output).toBe(75);
    expect(lookupPrice(DEFAULT_PRICE_TABLE, "claude-opus-4-20250514")?.input).toBe(15);
    expect(lookupPrice(DEFAULT_PRICE_TABLE, "claude-sonnet-4-20250514")?.input).toBe(3);
    expect(lookupPrice(DEFAULT_PRICE_TABLE, "us.anthropic.claude-sonnet-4-5-20250929-v1:0")?.input).toBe(3);
    expect(lookupPrice(DEFAULT_PRICE_TABLE, "claude-sonnet-4-5@20250929")?.cache_write).toBe(3.75);
  });

  it("does not price an unknown minor version as its family, nor unknown models", () => {
    expect(lookupPrice(DEFAULT_PRICE_TABLE, "claude-opus-4-9")).toBeNull();
    expect(lookupPrice(DEFAULT_PRICE_TABLE, "gpt-test")).toBeNull();
    expect(lookupPrice(DEFAULT_PRICE_TABLE, null)).toBeNull();
  });

  it("prefers the longest matching key", () => {
    const table = {
      "my-model": { input: 1, output: 1, cache_read: 0, cache_write: 0 },
      "my-model-large": { input: 9, output: 9, cache_read: 0, cache_write: 0 },
    };
    expect(lookupPrice(table, "my-model-large-20260101")?.input).toBe(9);
    expect(lookupPrice(table, "my-model-20260101")?.input).toBe(1);
  });
});

describe("lookupPrice across providers", () => {
  it("prices openai: ids from the OpenAI keys only, with OpenAI's dated ids", () => {
    expect(lookupPrice(DEFAULT_PRICE_TABLE, "openai:gpt-5.2")).toEqual({
      input: 1.75,
      output: 14,
      cache_read: 0.175,
      cache_write: 1.75,
    });
    expect(lookupPrice(DEFAULT_PRICE_TABLE, "openai:gpt-5-mini-2025-08-07")?.input).toBe(0.25);
    expect(lookupPrice(DEFAULT_PRICE_TABLE, "openai:gpt-4o-2024-08-06")?.input).toBe(2.5);
    // A size or a minor version is another model, not a dated release of the shorter key.
    expect(lookupPrice(DEFAULT_PRICE_TABLE, "openai:gpt-5.3")).toBeNull();
    expect(lookupPrice(DEFAULT_PRICE_TABLE, "openai:gpt-4o-mini-tts")).toBeNull();
    // The provider is part of the key: a bare id is Anthropic's, and never finds an OpenAI price.
    expect(lookupPrice(DEFAULT_PRICE_TABLE, "gpt-5.2")).toBeNull();
    expect(lookupPrice(DEFAULT_PRICE_TABLE, "openai:claude-haiku-4-5")).toBeNull();
    expect(lookupPrice(DEFAULT_PRICE_TABLE, "anthropic:claude-haiku-4-5")?.input).toBe(1);
    expect(lookupPrice(DEFAULT_PRICE_TABLE, "vllm:gpt-5.2")).toBeNull();
  });

  it("derives a user's OpenAI price's cache prices the OpenAI way, and rejects an unknown provider", async () => {
    const table = parsePriceTable({ "openai:llama3:8b": { input: 0.2, output: 0.6 } }, "prices.json");
    expect(table["openai:llama3:8b"]).toEqual({
      input: 0.2,
      output: 0.6,
      cache_read: 0.02,
      cache_write: 0.2,
    });
    expect(lookupPrice(table, "openai:llama3:8b")?.output).toBe(0.6);
    expect(() => parsePriceTable({ "opnai:gpt-5": { input: 1, output: 2 } }, "prices.json")).toThrow(
      /prices\.json: unknown provider "opnai".*did you mean "openai:gpt-5"/,
    );
  });
});

describe("computeCost", () => {
  it("prices every kind of token per million", () => {
    const price = { input: 3, output: 15, cache_read: 0.3, cache_write: 3.75 };
    const usage = {
      input_tokens: 1_000_000,
      output_tokens: 100_000,
      cache_read_tokens: 2_000_000,
      cache_write_tokens: 400_000,
    };
    // 3 + 1.5 + 0.6 + 1.5
    expect(computeCost(usage, price)).toBeCloseTo(6.6, 12);
  });
});

describe("loadPriceTable", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), "ltt-prices-"));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("merges a JSON file over the defaults, deriving cache prices", async () => {
    const file = path.join(dir, "prices.json");
    await writeFile(
      file,
      JSON.stringify({
        "my-model": { input: 2, output: 4 },
        "claude-haiku-4-5": { input: 0.5, output: 1, cache_read: 0 },
      }),
    );
    const table = await loadPriceTable(file, { parseYaml });
    expect(table["my-model"]).toEqual({ input: 2, output: 4, cache_read: 0.2, cache_write: 2.5 });
    expect(table["claude-haiku-4-5"]).toEqual({ input: 0.5, output: 1, cache_read: 0, cache_write: 0.625 });
    expect(table["claude-opus-4-5"]).toEqual(DEFAULT_PRICE_TABLE["claude-opus-4-5"]);
  });

  it("reads YAML with the scenario loader's parser", async () => {
    const file = path.join(dir, "prices.yaml");
    await writeFile(file, "# my prices\nmy-model:\n  input: 1\n  output: 2\n  cache_write: 0\n");
    const table = await loadPriceTable(file, { parseYaml });
    expect(table["my-model"]).toEqual({ input: 1, output: 2, cache_read: 0.1, cache_write: 0 });
  });

  it("reports a YAML syntax error as a ConfigError", async () => {
    const file = path.join(dir, "broken.yaml");
    await writeFile(file, "my-model: {input: 1\n");
    const error = await loadPriceTable(file, { parseYaml }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toMatch(/broken\.yaml/);
  });

  it.each([
    ["{not json", /prices-bad\.json: not valid JSON/],
    ['["x"]', /expected an object mapping model ids to prices/],
    ['{"m": {"input": 1}}', /m\.output: missing/],
    ['{"m": {"input": -1, "output": 1}}', /m\.input: expected a non-negative number/],
    [
      '{"m": {"input": 1, "output": 1, "cache_hit": 1}}',
      /m\.cache_hit: unknown field; allowed: input, output, cache_read, cache_write/,
    ],
  ])("rejects %s with a ConfigError naming the file and field", async (text, message) => {
    const file = path.join(dir, "prices-bad.json");
    await writeFile(file, text);
    const error = await loadPriceTable(file, { parseYaml }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).message).toMatch(message);
    expect((error as ConfigError).where).toBe(file);
  });

  it("says when the file is missing", async () => {
    await expect(loadPriceTable(path.join(dir, "nope.json"), { parseYaml })).rejects.toThrow(
      /nope\.json: the file does not exist/,
    );
  });
});
