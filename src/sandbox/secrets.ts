/**
 * Secret detection and redaction. The agent's environment is built from scratch (env.ts), so
 * secrets never reach it; redaction is the second line of defence for everything we write
 * (events, transcripts, reports, logs).
 */

const SECRET_PREFIXES = ["ANTHROPIC_", "OPENAI_", "ACTIONS_", "AWS_"];
const SECRET_NAMES = new Set(["GITHUB_TOKEN", "GH_TOKEN"]);
const SECRET_PARTS = [
  "KEY",
  "TOKEN",
  "SECRET",
  "PASSWORD",
  "PASSWD",
  "CREDENTIAL",
  "AUTH",
  "AUTHORIZATION",
  "PASS",
  "COOKIE",
  "SESSION",
  "PRIVATE",
];

/** Shorter values would redact ordinary words and numbers all over the output. */
export const MIN_SECRET_LENGTH = 6;
export const REDACTED = "[REDACTED]";

/** True for environment variable names that commonly hold credentials (case-insensitive). */
export function isSecretName(name: string): boolean {
  const upper = name.toUpperCase();
  if (SECRET_NAMES.has(upper)) return true;
  if (SECRET_PREFIXES.some((prefix) => upper.startsWith(prefix))) return true;
  // By word, so MY_API_KEY and APIKEY count but GIT_AUTHOR_NAME and KEYBOARD_LAYOUT do not.
  const words = upper.split(/[^A-Z0-9]+/).filter(Boolean);
  return words.some((word) =>
    SECRET_PARTS.some(
      (part) => word === part || word.endsWith(part) || word === `${part}S` || word.endsWith(`${part}S`),
    ),
  );
}

/** Values of secret-named variables (length >= 6), deduplicated, longest first. */
export function collectSecretValues(env: Record<string, string | undefined>): string[] {
  const values = new Set<string>();
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || value.length < MIN_SECRET_LENGTH) continue;
    if (isSecretName(name)) values.add(value);
  }
  return [...values].sort((a, b) => b.length - a.length);
}

/** A function that replaces every occurrence of the given values (and their JSON-escaped forms). */
export function createSecretRedactor(secretValues: readonly string[]): (text: string) => string {
  const needles = new Set<string>();
  for (const value of secretValues) {
    if (value.length < MIN_SECRET_LENGTH) continue;
    needles.add(value);
    // A value with quotes, backslashes or newlines appears escaped inside JSON text.
    const escaped = JSON.stringify(value).slice(1, -1);
    if (escaped !== value) needles.add(escaped);
  }
  if (needles.size === 0) return (text) => text;
  // One alternation, longest first so a secret that contains another is replaced whole.
  const sorted = [...needles].sort((a, b) => b.length - a.length);
  const pattern = new RegExp(sorted.map(escapeRegExp).join("|"), "g");
  return (text) => (text.length === 0 ? text : text.replace(pattern, REDACTED));
}

const redactorCache = new WeakMap<readonly string[], (text: string) => string>();

/** Replace every occurrence of each secret value with `[REDACTED]`. The compiled pattern is cached
 * per array, so pass the same array (from collectSecretValues) on every call. */
export function redactSecrets(text: string, secretValues: readonly string[]): string {
  if (secretValues.length === 0 || text.length === 0) return text;
  let redact = redactorCache.get(secretValues);
  if (!redact) {
    redact = createSecretRedactor(secretValues);
    redactorCache.set(secretValues, redact);
  }
  return redact(text);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
