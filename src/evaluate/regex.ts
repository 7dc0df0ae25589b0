/**
 * Regexes in scenarios (gate patterns, `target.command_pattern`, bashkit checks) are JavaScript
 * regexes, plus the leading inline-flag group of Rust/PCRE (`(?i)`, `(?s)`, `(?m)`, combined as
 * `(?is)`) because bashkit-eval datasets use it. Every consumer compiles through `compilePattern`
 * so a pattern means the same thing at load time and at evaluation time.
 */
import { describeError } from "../errors.js";

const LEADING_FLAGS = /^\(\?([a-zA-Z]+)\)/;
const SUPPORTED_FLAGS = new Set(["i", "m", "s"]);

/** Compiles a scenario pattern; throws an Error whose message says what is wrong. */
export function compilePattern(pattern: string, extraFlags = ""): RegExp {
  let source = pattern;
  const flags = new Set(extraFlags);
  const leading = LEADING_FLAGS.exec(pattern);
  if (leading) {
    for (const flag of leading[1] as string) {
      if (!SUPPORTED_FLAGS.has(flag)) {
        throw new Error(
          `inline flag \`${flag}\` in \`(?${leading[1]})\` is not supported (only i, m and s are)`,
        );
      }
      flags.add(flag);
    }
    source = pattern.slice(leading[0].length);
  }
  const flagText = [...flags].join("");
  try {
    return new RegExp(source, flagText);
  } catch (error) {
    const prefix = `Invalid regular expression: /${source}/${flagText}: `;
    const message = describeError(error);
    const reason = message.startsWith(prefix) ? message.slice(prefix.length) : message;
    const hint = /\(\?[a-zA-Z]/.test(source)
      ? " (inline flags such as `(?i)` are only allowed at the very start)"
      : "";
    throw new Error(`invalid regex ${JSON.stringify(pattern)}: ${reason}${hint}`);
  }
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
