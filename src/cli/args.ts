import { parseArgs } from "node:util";
import { suggestKey } from "../did-you-mean.js";
import { ConfigError, describeError } from "../errors.js";
import { parseDuration } from "../scenario/duration.js";

export type OptionSpec = Record<string, { type: "string" | "boolean"; short?: string; multiple?: boolean }>;

/** `--help` and `--debug` (stack traces on errors), which every command takes. */
export const COMMON_OPTIONS: OptionSpec = {
  help: { type: "boolean", short: "h" },
  debug: { type: "boolean" },
};

export interface ParsedArgs {
  values: Record<string, string | boolean | string[] | undefined>;
  positionals: string[];
}

/** Strict parsing with errors that name the flag and suggest the nearest known one. */
export function parseCommandArgs(command: string, argv: string[], options: OptionSpec): ParsedArgs {
  try {
    const { values, positionals } = parseArgs({ args: argv, options, allowPositionals: true, strict: true });
    return { values: values as ParsedArgs["values"], positionals };
  } catch (error) {
    const message = describeError(error);
    const unknown = /Unknown option '(-{1,2}[^']+)'/.exec(message);
    if (unknown?.[1]) {
      const flag = unknown[1].replace(/^-+/, "");
      const suggestion = suggestKey(flag, Object.keys(options));
      throw new ConfigError(
        `unknown option ${unknown[1]}${suggestion ? ` (did you mean --${suggestion}?)` : ""}; see \`llm-tool-test ${command} --help\``,
      );
    }
    throw new ConfigError(
      `${message.replace(/\. To specify.*$/s, "")}; see \`llm-tool-test ${command} --help\``,
    );
  }
}

export function readString(values: ParsedArgs["values"], name: string): string | undefined {
  const value = values[name];
  return typeof value === "string" ? value : undefined;
}

/** Every value of a repeatable string option, as given (no comma splitting: they may be paths). */
export function readRepeated(values: ParsedArgs["values"], name: string): string[] {
  const value = values[name];
  return Array.isArray(value) ? value : typeof value === "string" ? [value] : [];
}

export function readList(values: ParsedArgs["values"], name: string): string[] {
  const value = values[name];
  const raw = Array.isArray(value) ? value : typeof value === "string" ? [value] : [];
  return raw
    .flatMap((v) => v.split(","))
    .map((v) => v.trim())
    .filter(Boolean);
}

export function readInteger(values: ParsedArgs["values"], name: string, min: number): number | undefined {
  const raw = readString(values, name);
  if (raw === undefined) return undefined;
  if (!/^\d+$/.test(raw.trim()) || Number(raw) < min) {
    throw new ConfigError(`--${name} must be a whole number >= ${min}, got "${raw}"`);
  }
  return Number(raw);
}

export function readNumber(values: ParsedArgs["values"], name: string, min: number): number | undefined {
  const raw = readString(values, name);
  if (raw === undefined) return undefined;
  const value = Number(raw);
  if (raw.trim() === "" || !Number.isFinite(value) || value < min) {
    throw new ConfigError(`--${name} must be a number >= ${min}, got "${raw}"`);
  }
  return value;
}

/** A duration flag, read like a scenario's durations: "90", "90s", "1m30s", "1500ms", "1h". */
export function readDurationMs(values: ParsedArgs["values"], name: string): number | undefined {
  const raw = readString(values, name);
  if (raw === undefined) return undefined;
  try {
    return parseDuration(raw);
  } catch {
    throw new ConfigError(`--${name} must be a positive duration such as 90s, 5m or 1500ms, got "${raw}"`);
  }
}

export function readChoice<T extends string>(
  values: ParsedArgs["values"],
  name: string,
  choices: readonly T[],
): T | undefined {
  const raw = readString(values, name);
  if (raw === undefined) return undefined;
  if ((choices as readonly string[]).includes(raw)) return raw as T;
  const suggestion = suggestKey(raw, choices);
  throw new ConfigError(
    `--${name} must be one of ${choices.join(", ")}; got "${raw}"${suggestion ? ` (did you mean ${suggestion}?)` : ""}`,
  );
}

/** "i/n" with 1 <= i <= n. */
export function readShard(
  values: ParsedArgs["values"],
  name: string,
): { index: number; count: number } | undefined {
  const raw = readString(values, name);
  if (raw === undefined) return undefined;
  const match = /^(\d+)\/(\d+)$/.exec(raw.trim());
  const index = Number(match?.[1]);
  const count = Number(match?.[2]);
  if (!match || count < 1 || index < 1 || index > count) {
    throw new ConfigError(`--${name} must look like i/n with 1 <= i <= n (e.g. 2/4), got "${raw}"`);
  }
  return { index, count };
}
