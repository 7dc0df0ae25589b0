/**
 * Secret detection and redaction. The agent's environment is built from scratch (env.ts), so
 * secrets never reach it; redaction is the second line of defence for everything we write
 * (events, transcripts, reports, logs). Two kinds of secrets are redacted:
 * - known values: the values of secret-named variables, of variables whose value has a credential's
 *   shape, and the passwords of URLs in any value; each also reversed and base64-encoded (at any
 *   alignment, wrapped or not), for values of at least 8 characters;
 * - shapes (secret-shapes.ts): URL passwords and tokens of known formats, whatever their source.
 */
import { findUrlPasswords, hasTokenShape, REDACTED, redactSecretShapes } from "./secret-shapes.js";

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
const MIN_SECRET_LENGTH = 6;
/** Shorter values' reversed and encoded forms would match ordinary text. */
const MIN_ENCODED_SECRET_LENGTH = 8;

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

/**
 * The secret values in an environment (length >= 6), deduplicated, longest first: values of
 * secret-named variables, values that have a credential's shape whatever the name (`STRIPE_SK`,
 * `SLACK_WEBHOOK`), and the password of every URL (`DATABASE_URL=postgres://app:pw@db`).
 */
export function collectSecretValues(env: Record<string, string | undefined>): string[] {
  const values = new Set<string>();
  const add = (value: string) => {
    if (value.length >= MIN_SECRET_LENGTH) values.add(value);
  };
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue;
    if (isSecretName(name) || hasTokenShape(value)) add(value);
    for (const password of findUrlPasswords(value)) {
      add(password);
      add(safeDecodeURIComponent(password));
    }
  }
  return [...values].sort((a, b) => b.length - a.length);
}

/** Secret values of several environments (the parent's, each scenario's target env), merged. */
export function mergeSecretValues(...lists: readonly (readonly string[])[]): string[] {
  return [...new Set(lists.flat())].sort((a, b) => b.length - a.length);
}

/**
 * A function that replaces every occurrence of the given values (and their JSON-escaped, reversed
 * and base64 forms), then every credential of a known shape, with `[REDACTED]`.
 */
export function createSecretRedactor(secretValues: readonly string[]): (text: string) => string {
  const needles = new Set<string>();
  const encodedNeedles = new Set<string>();
  for (const value of secretValues) {
    if (value.length < MIN_SECRET_LENGTH) continue;
    needles.add(value);
    // A value with quotes, backslashes or newlines appears escaped inside JSON text.
    const escaped = JSON.stringify(value).slice(1, -1);
    if (escaped !== value) needles.add(escaped);
    if (value.length < MIN_ENCODED_SECRET_LENGTH) continue;
    needles.add([...value].reverse().join(""));
    for (const encoded of base64Forms(value)) encodedNeedles.add(encoded);
  }
  const pattern = alternationOf([...needles, ...encodedNeedles]);
  const encodedPattern = alternationOf([...encodedNeedles]);
  return (text) => {
    if (text.length === 0) return text;
    let result = pattern ? text.replace(pattern, REDACTED) : text;
    if (encodedPattern) result = redactWrappedBase64(result, encodedPattern);
    return redactSecretShapes(result);
  };
}

/** One alternation, longest first so a secret that contains another is replaced whole. */
function alternationOf(literals: string[]): RegExp | null {
  if (literals.length === 0) return null;
  const sorted = [...new Set(literals)].sort((a, b) => b.length - a.length);
  return new RegExp(sorted.map(escapeRegExp).join("|"), "g");
}

/**
 * The value's base64 text as it appears inside any longer encoded stream: one string per byte
 * alignment (0, 1 or 2 bytes of the value dropped from the start, the partial group at the end
 * dropped), in the standard and the URL-safe alphabet. Each is a substring of the encoding of
 * anything that contains the value at that alignment, so `echo "x=$KEY" | base64` is caught too.
 */
function base64Forms(value: string): string[] {
  const bytes = Buffer.from(value, "utf8");
  const forms = new Set<string>();
  for (let skip = 0; skip < 3; skip += 1) {
    const usable = Math.floor((bytes.length - skip) / 3) * 3;
    if (usable < 6) continue;
    const encoded = bytes.subarray(skip, skip + usable).toString("base64");
    forms.add(encoded);
    forms.add(encoded.replaceAll("+", "-").replaceAll("/", "_"));
  }
  return [...forms];
}

/** A line of wrapped base64 (`base64` wraps at 76 columns, `openssl` at 64). */
const BASE64_LINE = /[A-Za-z0-9+/_-]{40,}={0,2}/g;
const BASE64_TAIL = /[A-Za-z0-9+/_-]+={0,2}/y;
/** A line break as it appears in text, or escaped inside JSON. */
const LINE_BREAK = /\r?\n|\\r\\n|\\n/y;

/**
 * Base64 wrapped over several lines, where an encoded secret can straddle a break: each block of
 * consecutive base64 lines is joined and searched; a block holding a secret is replaced by the
 * joined, redacted text. One pass over the text, no backtracking.
 */
function redactWrappedBase64(text: string, encodedPattern: RegExp): string {
  let output = "";
  let copied = 0;
  BASE64_LINE.lastIndex = 0;
  for (let match = BASE64_LINE.exec(text); match !== null; match = BASE64_LINE.exec(text)) {
    const blockStart = match.index;
    const lines = [match[0]];
    let end = match.index + match[0].length;
    for (;;) {
      LINE_BREAK.lastIndex = end;
      const lineBreak = LINE_BREAK.exec(text);
      if (!lineBreak) break;
      BASE64_TAIL.lastIndex = end + lineBreak[0].length;
      const next = BASE64_TAIL.exec(text);
      if (!next) break;
      lines.push(next[0]);
      end = BASE64_TAIL.lastIndex;
      // A short line ends the block (the last line of the encoding).
      if (next[0].length < 40) break;
    }
    BASE64_LINE.lastIndex = end;
    if (lines.length < 2) continue;
    const joined = lines.join("");
    encodedPattern.lastIndex = 0;
    if (!encodedPattern.test(joined)) continue;
    encodedPattern.lastIndex = 0;
    output += text.slice(copied, blockStart) + joined.replace(encodedPattern, REDACTED);
    copied = end;
  }
  return copied === 0 ? text : output + text.slice(copied);
}

function safeDecodeURIComponent(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
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
