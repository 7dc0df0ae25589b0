/** Durations in scenarios: "1500ms", "300s", "5m", "1h", "1m30s", or a bare number of seconds. */

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
const DURATION = /^(?:\d+(?:\.\d+)?(?:ms|s|m|h))+$/;
const PART = /(\d+(?:\.\d+)?)(ms|s|m|h)/g;

/** Milliseconds for a duration, or an Error saying what is accepted. Zero and negatives are rejected. */
export function parseDuration(value: string | number): number {
  if (typeof value === "number") {
    if (!Number.isFinite(value) || value <= 0)
      throw new Error(`expected a positive duration, found ${value}`);
    return Math.round(value * 1000);
  }
  const text = value.trim();
  if (/^\d+(?:\.\d+)?$/.test(text)) return parseDuration(Number(text));
  if (!DURATION.test(text)) {
    throw new Error(
      `expected a duration like "300s", "5m", "1500ms", "1h" or a number of seconds, found ${JSON.stringify(value)}`,
    );
  }
  let total = 0;
  for (const match of text.matchAll(PART))
    total += Number(match[1]) * (UNIT_MS[match[2] as string] as number);
  if (total <= 0) throw new Error(`expected a positive duration, found ${JSON.stringify(value)}`);
  return Math.round(total);
}
