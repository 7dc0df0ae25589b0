/**
 * How deeply JSON read from files may nest. `JSON.parse` itself copes with any depth, but every
 * recursive walk after it (JSON.stringify, rendering, comparing) overflows the stack somewhere
 * past a few thousand levels, far from the file that caused it. Reports and events nest a dozen
 * levels; anything past MAX_JSON_DEPTH is refused where it is read, with its line.
 */

const MAX_JSON_DEPTH = 100;

/**
 * The 1-based line (counted within `text`) where JSON nesting first exceeds `maxDepth`, or null.
 * A scan of brackets outside strings: linear, and it needs no parse, so it also runs before one.
 */
export function findExcessNesting(text: string, maxDepth = MAX_JSON_DEPTH): number | null {
  let depth = 0;
  let line = 1;
  let inString = false;
  for (let at = 0; at < text.length; at += 1) {
    const char = text.charCodeAt(at);
    if (char === 10) line += 1;
    if (inString) {
      if (char === 92)
        at += 1; // backslash: skip the escaped character
      else if (char === 34) inString = false;
    } else if (char === 34) {
      inString = true;
    } else if (char === 91 || char === 123) {
      depth += 1;
      if (depth > maxDepth) return line;
    } else if (char === 93 || char === 125) {
      depth -= 1;
    }
  }
  return null;
}

export function describeExcessNesting(maxDepth = MAX_JSON_DEPTH): string {
  return `a JSON value nests more than ${maxDepth} levels deep`;
}
