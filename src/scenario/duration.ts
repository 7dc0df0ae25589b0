/**
 * Durations, in scenarios and on the command line: "1500ms", "300s", "5m", "1h", "1m30s", or a
 * bare number of seconds. One parser, so `timeout: 1m30s` and `--timeout 1m30s` mean the same.
 */

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
const DURATION = /^(?:\d+(?:\.\d+)?(?:ms|s|m|h))+$/;
const PART = /(\d+(?:\.\d+)?)(ms|s|m|h)/g;

export interface DurationRules {
  /**
   * Accept a zero duration (the command-line flags always have; scenarios never have).
   * Negative durations are never accepted.
   */
  allowZero?: boolean;
}

/** Milliseconds for a duration, or an Error saying what is accepted. Zero is rejected unless allowed. */
export function parseDuration(value: string | number, rules: DurationRules = {}): number {
  const allowZero = rules.allowZero ?? false;
  if (typeof value === "number") {
    if (!Number.isFinite(value) || value < 0 || (value === 0 && !allowZero))
      throw new Error(`expected a positive duration, found ${value}`);
    return Math.round(value * 1000);
  }
  const text = value.trim();
  if (/^\d+(?:\.\d+)?$/.test(text)) return parseDuration(Number(text), rules);
  if (!DURATION.test(text)) {
    throw new Error(
      `expected a duration like "300s", "5m", "1500ms", "1h" or a number of seconds, found ${JSON.stringify(value)}`,
    );
  }
  let total = 0;
  for (const match of text.matchAll(PART))
    total += Number(match[1]) * (UNIT_MS[match[2] as string] as number);
  if (total === 0 && !allowZero)
    throw new Error(`expected a positive duration, found ${JSON.stringify(value)}`);
  return Math.round(total);
}
