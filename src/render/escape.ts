/**
 * One escaper per output language. Everything a report carries (scenario ids, gate messages,
 * agent output) is untrusted text.
 */

const HTML_ESCAPES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

/** HTML: text for element content or a quoted attribute value (also used inside Markdown). */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c] ?? c);
}

/**
 * JSON for a `<script type="application/json">` element. Escaping every `<` rules out both
 * `</script>` and `<!--` (which would change how the element ends); `>` and `&` go too, so the
 * blob is inert whatever the parser state, and U+2028/U+2029 for older JavaScript parsers.
 */
export function embedJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, "\\u003c")
    .replace(/>/g, "\\u003e")
    .replace(/&/g, "\\u0026")
    .replace(/\u2028/g, "\\u2028")
    .replace(/\u2029/g, "\\u2029");
}

/** Markdown: text for a table cell or a one-line heading (pipes escaped, line breaks as spaces). */
export function escapeMarkdownCell(text: string): string {
  return text.replace(/\|/g, "\\|").replace(/\r?\n/g, " ");
}

/**
 * Markdown: untrusted text (a scenario key, a metric name) as an inline code span, inert whatever
 * it holds: inside a code span Markdown, HTML (`</details>`, `<!--`) and @mentions are literal. The
 * fence is one backtick longer than the longest run inside, padded when the text touches a
 * backtick, so the text reads exactly as written; line breaks become spaces. In a table cell, pass
 * the result through escapeMarkdownCell too (GFM splits cells on `|` even inside code).
 */
export function markdownCode(text: string): string {
  const flat = text.replace(/\r?\n|\r/g, " ");
  if (flat.length === 0) return "` `";
  const longest = Math.max(0, ...(flat.match(/`+/g) ?? []).map((run) => run.length));
  const fence = "`".repeat(longest + 1);
  const pad = longest > 0 || /^ | $/.test(flat) ? " " : "";
  return `${fence}${pad}${flat}${pad}${fence}`;
}

/** Markdown: untrusted text as one line of a paragraph or quote (HTML escaped, line breaks as spaces). */
export function escapeMarkdownLine(text: string): string {
  return escapeHtml(text.replace(/\r?\n|\r/g, " "));
}

/** Plain text for a terminal or a log line: control characters (ANSI escapes, line breaks) shown as their Unicode pictures. */
export function escapePlainText(text: string): string {
  return text.replace(/[\u0000-\u001F\u007F]/g, (c) =>
    String.fromCharCode(c === "\u007F" ? 0x2421 : 0x2400 + c.charCodeAt(0)),
  );
}

/** Characters XML 1.0 cannot carry at all, even as references: C0 controls other than tab/LF/CR, U+FFFE/U+FFFF, lone surrogates. */
const XML_FORBIDDEN =
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** Shows a forbidden control character as its Unicode "control picture" (ESC → ␛), anything else as U+FFFD. */
function replaceXmlForbidden(text: string): string {
  return text.replace(XML_FORBIDDEN, (c) => {
    const code = c.charCodeAt(0);
    return code < 0x20 ? String.fromCharCode(0x2400 + code) : "\uFFFD";
  });
}

/** XML: element content. */
export function escapeXmlText(text: string): string {
  return replaceXmlForbidden(text).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/** XML: a quoted attribute value; line breaks and tabs stay as references (parsers would turn them into spaces). */
export function escapeXmlAttribute(text: string): string {
  return escapeXmlText(text)
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&apos;")
    .replace(/\t/g, "&#9;")
    .replace(/\n/g, "&#10;")
    .replace(/\r/g, "&#13;");
}
