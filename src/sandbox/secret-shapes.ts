/**
 * Credentials recognised by their shape, whatever variable (or file, or output) they come from.
 * This module owns the list; secrets.ts applies it with the known secret values. docs/architecture.md
 * ("Secrets") lists the same shapes for users.
 *
 * Every pattern is linear: character classes with bounded or single quantifiers, separated by
 * literals the classes cannot match, never a quantified group. A candidate is confirmed by a
 * plain check (`accept`) rather than a cleverer pattern, so ordinary text (words with `sk-` in
 * them, git SHAs, UUIDs, base64 file content) is kept.
 */

export const REDACTED = "[REDACTED]";

interface SecretShape {
  name: string;
  /** Global; `\b` on the left so a prefix inside a longer word (`task-`, `desk-`) never starts one. */
  pattern: RegExp;
  /** Confirms a match; default: every match is a secret. */
  accept?: (match: string) => boolean;
}

/** Random-looking: at least one digit and one letter (real keys have both; prose and names rarely do). */
function looksRandom(text: string): boolean {
  return /[0-9]/.test(text) && /[A-Za-z]/.test(text);
}

const SECRET_SHAPES: readonly SecretShape[] = [
  { name: "Anthropic API key", pattern: /\bsk-ant-[A-Za-z0-9_-]{20,}/g, accept: looksRandom },
  {
    name: "OpenAI API key",
    pattern: /\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{32,}/g,
    accept: (match) => looksRandom(match.slice(3)),
  },
  { name: "GitHub token", pattern: /\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,})/g },
  { name: "Slack token", pattern: /\bxox[abprs]-[A-Za-z0-9-]{10,}/g, accept: looksRandom },
  {
    name: "Slack webhook",
    pattern: /\bhooks\.slack\.com\/services\/[A-Za-z0-9_/-]{8,}/g,
  },
  { name: "AWS access key id", pattern: /\b(?:AKIA|ASIA)[A-Z0-9]{16}\b/g },
  { name: "Stripe secret key", pattern: /\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}/g },
  {
    name: "JSON Web Token",
    pattern: /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g,
  },
];

/**
 * `scheme://user:password@host`: the password (up to the last `@` before the host) is replaced,
 * the scheme, user and host are kept. The user part stops at the first `:`; neither part crosses
 * whitespace, `/`, `?` or `#`.
 */
const URL_CREDENTIALS = /\b([A-Za-z][A-Za-z0-9+.-]{0,30}:\/\/[^\s:@/?#]{0,256}:)([^\s/?#]{1,256})@/g;

/** The password of each `scheme://user:password@` in `text` (to redact its other forms too). */
export function findUrlPasswords(text: string): string[] {
  const found: string[] = [];
  for (const match of text.matchAll(URL_CREDENTIALS)) {
    const password = match[2] as string;
    if (password !== REDACTED) found.push(password);
  }
  return found;
}

/** Whether `text` holds a token of a known shape (URL passwords aside). */
export function hasTokenShape(text: string): boolean {
  return redactTokenShapes(text) !== text;
}

/** Replaces URL passwords and every token of a known shape with `[REDACTED]`. */
export function redactSecretShapes(text: string): string {
  return redactTokenShapes(
    text.replace(URL_CREDENTIALS, (whole, head: string, password: string) =>
      password === REDACTED ? whole : `${head}${REDACTED}@`,
    ),
  );
}

function redactTokenShapes(text: string): string {
  let result = text;
  for (const shape of SECRET_SHAPES) {
    const { accept } = shape;
    result = result.replace(shape.pattern, (match) => (!accept || accept(match) ? REDACTED : match));
  }
  return result;
}
