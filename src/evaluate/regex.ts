/**
 * Regexes in scenarios (gate patterns, `target.command_pattern`, bashkit checks) run on RE2 (the
 * `re2js` port): matching takes time linear in the text, so an agent's output cannot make a gate
 * spin (a backtracking engine takes minutes on `(a+)+$` over 100 KB of `a`s). The syntax is
 * JavaScript's as far as RE2 can express it: JavaScript-only spellings (`(?<name>…)`, `\u00e9`,
 * `[^]`, `\cA`) are translated, inline flags such as the `(?i)` of bashkit-eval datasets work
 * anywhere, and what needs backtracking (backreferences, lookahead, lookbehind) is refused with a
 * reason. Every consumer compiles through `compilePattern` so a pattern means the same thing at
 * load time and at evaluation time.
 */
import { RE2JS, RE2JSSyntaxException } from "re2js";
import { describeError } from "../errors.js";

/** One match: where it starts, its text and its groups (0 is the whole match; one that did not take part is undefined). */
export interface PatternMatch {
  index: number;
  text: string;
  groups: readonly (string | undefined)[];
}

/**
 * How far past its start a match at a fixed position may look: a command word's pattern needs a
 * line of context, and the bound keeps trying many start positions in one large script linear.
 */
const MATCH_AT_WINDOW = 10_000;

/** A compiled scenario pattern; stateless, so one instance serves any number of texts. */
export class ScenarioPattern {
  readonly #compiled: RE2JS;

  constructor(
    /** The pattern as written in the scenario. */
    readonly source: string,
    compiled: RE2JS,
  ) {
    this.#compiled = compiled;
  }

  /** Whether the pattern matches anywhere in `text`. */
  test(text: string): boolean {
    return this.#compiled.test(text);
  }

  /** The leftmost match in `text`, or null. */
  find(text: string): PatternMatch | null {
    const found = this.#compiled.exec(text) as RegExpExecArray | null;
    return found ? toMatch(found, found.index) : null;
  }

  /** Every non-overlapping match in `text`, left to right. */
  *findAll(text: string): Generator<PatternMatch> {
    for (const found of this.#compiled.matchAll(text)) yield toMatch(found, found.index ?? 0);
  }

  /**
   * A match that starts exactly at `at` (like a sticky JavaScript regex), looking at most
   * MATCH_AT_WINDOW characters ahead. `^` and `\b` see `at` as the start of the text.
   */
  matchAt(text: string, at: number): PatternMatch | null {
    const matcher = this.#compiled.matcher(text.slice(at, at + MATCH_AT_WINDOW));
    if (!matcher.lookingAt()) return null;
    const groups: (string | undefined)[] = [];
    for (let group = 0; group <= matcher.groupCount(); group += 1)
      groups.push(matcher.group(group) ?? undefined);
    return { index: at, text: groups[0] ?? "", groups };
  }
}

function toMatch(found: ArrayLike<string | undefined>, index: number): PatternMatch {
  return { index, text: found[0] ?? "", groups: Array.from(found) };
}

/** A pattern that matches `literal` as a whole command word (followed by the end or a shell separator). */
export function commandWordPattern(literal: string): ScenarioPattern {
  return compilePattern(`${RE2JS.quote(literal)}(?:$|[\\s;&|()<>\`'"])`);
}

/** Compiles a scenario pattern; throws an Error whose message says what is wrong. */
export function compilePattern(pattern: string): ScenarioPattern {
  const unsupported = findUnsupportedConstruct(pattern);
  if (unsupported) throw new Error(`invalid regex ${JSON.stringify(pattern)}: ${unsupported}`);
  try {
    return new ScenarioPattern(pattern, RE2JS.compile(RE2JS.translateRegExp(pattern)));
  } catch (error) {
    const reason = error instanceof RE2JSSyntaxException ? describeSyntaxError(error) : describeError(error);
    throw new Error(`invalid regex ${JSON.stringify(pattern)}: ${reason}`);
  }
}

function describeSyntaxError(error: RE2JSSyntaxException): string {
  const fragment = error.getPattern();
  return fragment ? `${error.getDescription()} in \`${fragment}\`` : error.getDescription();
}

/** Returns null when `pattern` compiles, else the reason. */
export function patternSyntaxError(pattern: string): string | null {
  try {
    compilePattern(pattern);
    return null;
  } catch (error) {
    return describeError(error);
  }
}

const LINEAR_TIME = "gate regexes run in linear time (RE2), which cannot express it";

/**
 * Backreferences and lookaround, named in words (RE2's own message for `(?=` is "invalid or
 * unsupported Perl syntax", and the JavaScript translation would turn `\k<name>` into a literal).
 */
function findUnsupportedConstruct(pattern: string): string | null {
  let inClass = false;
  for (let at = 0; at < pattern.length; at += 1) {
    const char = pattern[at];
    if (char === "\\") {
      const next = pattern[at + 1] ?? "";
      if (!inClass && (/[1-9]/.test(next) || (next === "k" && pattern[at + 2] === "<"))) {
        return `backreference \`${pattern.slice(at, at + 2)}\` is not supported: ${LINEAR_TIME}`;
      }
      at += 1;
    } else if (inClass) {
      if (char === "]") inClass = false;
    } else if (char === "[") {
      inClass = true;
      if (pattern[at + 1] === "]") at += 1; // `[]]`: a leading `]` is a literal in RE2
    } else if (char === "(" && pattern[at + 1] === "?") {
      const lookaround = /^\(\?<?[=!]/.exec(pattern.slice(at, at + 4));
      if (lookaround) {
        const kind = lookaround[0].includes("<") ? "lookbehind" : "lookahead";
        return `${kind} \`${lookaround[0]}\` is not supported: ${LINEAR_TIME}`;
      }
    }
  }
  return null;
}
