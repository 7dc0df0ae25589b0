/**
 * Durations, in scenarios, on the command line and in action inputs: "1500ms", "300s", "5m", "1h",
 * "1m30s", or a bare number of seconds. One parser, so `timeout: 1m30s` and `--timeout 1m30s` mean
 * the same. Zero is refused everywhere (a zero timeout ends every trial before it starts), and so
 * is anything longer than a timer can wait (Node fires a longer timer at once).
 */

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
const DURATION = /^(?:\d+(?:\.\d+)?(?:ms|s|m|h))+$/;
const PART = /(\d+(?:\.\d+)?)(ms|s|m|h)/g;
/** The longest delay `setTimeout` honours, 2^31 - 1 ms (about 596 hours). */
const MAX_DURATION_MS = 2_147_483_647;

/** Milliseconds for a duration, or an Error saying what is accepted. */
export function parseDuration(value: string | number): number {
  if (typeof value === "number") return checkRange(value * 1000, value);
  const text = value.trim();
  if (/^\d+(?:\.\d+)?$/.test(text)) return checkRange(Number(text) * 1000, value);
  if (!DURATION.test(text)) {
    throw new Error(
      `expected a duration like "300s", "5m", "1500ms", "1h" or a number of seconds, found ${JSON.stringify(value)}`,
    );
  }
  let total = 0;
  for (const match of text.matchAll(PART))
    total += Number(match[1]) * (UNIT_MS[match[2] as string] as number);
  return checkRange(total, value);
}

function checkRange(ms: number, written: string | number): number {
  const shown = typeof written === "number" ? String(written) : JSON.stringify(written);
  if (!Number.isFinite(ms) || Math.round(ms) <= 0)
    throw new Error(`expected a positive duration, found ${shown}`);
  if (ms > MAX_DURATION_MS) throw new Error(`expected a duration of at most 596h, found ${shown}`);
  return Math.round(ms);
}
