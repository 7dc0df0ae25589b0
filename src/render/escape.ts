/**
 * One escaper per output language. Everything a report carries (scenario ids, names and
 * descriptions, gate messages, agent output, judge rationales, error messages) is untrusted text:
 * a scenario author or the agent wrote it. Each escaper makes it inert in its context; none of
 * them lets a control character through.
 */

const HTML_ESCAPES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

// ---------------------------------------------------------------------------------------------
// What every rendering does to untrusted text first
// ---------------------------------------------------------------------------------------------

/** ANSI escape sequences whole (CSI with its parameters, OSC up to its terminator, ESC + one character), so no remnant like "[2J" is left. */
const ANSI_SEQUENCE = /\u001B(?:\[[0-?]*[ -/]*[@-~]|\][^\u0007\u001B]*(?:\u0007|\u001B\\)?|[ -/]*[0-~])?/g;

/**
 * Characters no rendering passes on: C0 controls but tab and line feed, DEL, C1 (8-bit CSI
 * included), and the bidirectional marks, embeddings, overrides and isolates that reorder what a
 * reader sees (Trojan Source).
 */
const CONTROL = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/g;

/** Text without control characters: line breaks as \n, ANSI sequences and the characters above removed. */
export function stripControls(text: string): string {
  return text.replace(/\r\n?/g, "\n").replace(ANSI_SEQUENCE, "").replace(CONTROL, "");
}

/**
 * A zero-width space after `@` (before a name), `#` (before a number) and `GH-`: GitHub then
 * neither notifies anyone nor links an issue, and the text reads the same. Backslash escapes and
 * character references do not do this (GitHub finds mentions in the rendered text).
 */
const ZWSP = "\u200B";
function breakReferences(text: string): string {
  return (
    text
      // GitHub reads a mention only after a non-word character (so `id@variant` is left as it is).
      .replace(/(?<![A-Za-z0-9_])@(?=[A-Za-z0-9])/g, `@${ZWSP}`)
      .replace(/#(?=\d)/g, `#${ZWSP}`)
      .replace(/\b(GH-)(?=\d)/gi, `$1${ZWSP}`)
  );
}

/**
 * A zero-width space after `http://` and `https://` and inside `www.`: GitHub autolinks those in text (GFM's
 * extended autolinks), which would make an agent's URL a clickable link in the report and the
 * comment. The text reads the same; nothing links.
 */
function breakAutolinks(text: string): string {
  // After `://`, not inside the scheme: the redaction that runs over rendered text still sees
  // `scheme://user:password@` whole.
  return text.replace(/\b(https?:\/\/)/gi, `$1${ZWSP}`).replace(/\b(www)(?=\.)/gi, `$1${ZWSP}`);
}

/**
 * For code spans and fenced blocks, where neither escapes nor references apply: a zero-width space
 * after each `<` that could open a tag or a comment. They render as code anyway; this keeps the
 * Markdown source free of the text's own `<!--`, `</details>` or `<img` too, so our comment
 * marker cannot be forged and a cut never miscounts a block.
 */
function breakTags(text: string): string {
  return text.replace(/<(?=[A-Za-z/!?])/g, `<${ZWSP}`);
}

/**
 * Backtick runs longer than 15 split by a zero-width space, so a code span's or a fenced block's
 * fence stays short (at most 16) and a cut comment always has room to close one.
 */
function shortenBacktickRuns(text: string): string {
  return text.replace(/`{16,}/g, (run) => (run.match(/`{1,15}/g) ?? []).join(ZWSP));
}

/** Untrusted text for a code span or a fenced block: no controls, tags, references or long backtick runs. */
function neutralizeCode(text: string): string {
  return shortenBacktickRuns(breakReferences(breakTags(stripControls(text))));
}

// ---------------------------------------------------------------------------------------------
// HTML
// ---------------------------------------------------------------------------------------------

/** HTML: text for element content or a quoted attribute value; control characters stripped. */
export function escapeHtml(text: string): string {
  return stripControls(text).replace(/[&<>"']/g, (c) => HTML_ESCAPES[c] ?? c);
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

// ---------------------------------------------------------------------------------------------
// Markdown (GitHub-flavoured, which renders the HTML inside it)
// ---------------------------------------------------------------------------------------------

/**
 * Markdown: a code span of markdownCode's in a table cell. GFM splits cells on `|` even inside
 * code, unless it is escaped, and reads `\\` as an escaped backslash first: so each pipe gets a
 * backslash, and a backslash already before it is kept apart by a zero-width space. Line breaks
 * become spaces. (markdownText's output is cell-safe as it is: do not pass it through this.)
 */
export function escapeMarkdownCell(text: string): string {
  return text
    .replace(/\\(?=\|)/g, `\\${ZWSP}`)
    .replace(/\|/g, "\\|")
    .replace(/\r?\n|\r/g, " ");
}

/**
 * Markdown: untrusted text as one line of prose, safe in a paragraph, a list item, bold, a
 * heading, a table cell or `<sub>`: controls stripped; `& < >` as references (no HTML, no comment,
 * no autolink); Markdown's punctuation backslash-escaped (no emphasis, code, link, image, math or
 * cell split); a line-start marker escaped (no heading, list or quote); mentions, issue
 * references and autolinks (`https://…`, `www.…`) broken; line breaks and tabs as spaces.
 */
export function markdownText(text: string): string {
  const flat = stripControls(text)
    .replace(/[\n\t]+/g, " ")
    .trim();
  const escaped = flat
    .replace(/[&<>]/g, (c) => HTML_ESCAPES[c] ?? c)
    .replace(/[\\`*[\]{}|~$#]/g, "\\$&")
    // `_` emphasises only at a word's edge: snake_case names stay as they are.
    .replace(/(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])/g, "\\_")
    .replace(/^(?:[-+=]|\d{1,9}(?=[.)](?: |$)))/, (marker) =>
      /\d/.test(marker) ? `${marker}\\` : `\\${marker}`,
    );
  return breakAutolinks(breakReferences(escaped));
}

/**
 * Markdown: untrusted text (a scenario key, a metric name) as an inline code span, inert whatever
 * it holds: inside a code span Markdown, HTML and @mentions are literal, and the source holds none
 * of the text's own tags either (breakTags). The fence is one backtick longer than the longest
 * run inside, padded when the text touches a backtick; line breaks become spaces. In a table cell,
 * pass the result through escapeMarkdownCell too.
 */
export function markdownCode(text: string): string {
  const flat = neutralizeCode(text).replace(/[\n\t]/g, " ");
  if (flat.length === 0) return "` `";
  const longest = Math.max(0, ...(flat.match(/`+/g) ?? []).map((run) => run.length));
  const fence = "`".repeat(longest + 1);
  const pad = longest > 0 || /^ | $/.test(flat) ? " " : "";
  return `${fence}${pad}${flat}${pad}${fence}`;
}

/**
 * Markdown: untrusted multi-line text (an output excerpt, a gate message) as a fenced code block
 * whose fence is longer than any backtick run inside, so no line of it can close the block. Every
 * line, fences included, starts with `indent` (two spaces keep it inside a list item).
 */
export function markdownFence(text: string, indent = ""): string {
  const body = neutralizeCode(text).replace(/\n+$/, "");
  const longest = Math.max(2, ...(body.match(/`+/g) ?? []).map((run) => run.length));
  const fence = "`".repeat(longest + 1);
  return [fence, ...body.split("\n"), fence].map((line) => `${indent}${line}`).join("\n");
}

/**
 * Markdown: untrusted text inside an HTML element of ours (`<summary><code>…</code></summary>`):
 * HTML-escaped, and Markdown's punctuation as character references too, so it stays text whether
 * GitHub reads the line as an HTML block or as inline HTML in a paragraph (where Markdown applies).
 */
export function markdownHtml(text: string): string {
  // References broken first: the character references made below carry `#` and digits.
  return escapeHtml(breakAutolinks(breakReferences(text))).replace(
    /[[\]*`\\|~$]|(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])/g,
    (c) => `&#${c.charCodeAt(0)};`,
  );
}

// ---------------------------------------------------------------------------------------------
// Plain text
// ---------------------------------------------------------------------------------------------

/**
 * Plain text for a terminal or a log line: no escape sequence of the text's reaches the terminal.
 * C0 controls (ESC, line breaks) show as their Unicode pictures (ESC → ␛), so tampering is
 * visible; C1 controls and the bidirectional marks and overrides are dropped.
 */
export function escapePlainText(text: string): string {
  return text
    .replace(/[\u0080-\u009F\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/g, "")
    .replace(/[\u0000-\u001F\u007F]/g, (c) =>
      String.fromCharCode(c === "\u007F" ? 0x2421 : 0x2400 + c.charCodeAt(0)),
    );
}

// ---------------------------------------------------------------------------------------------
// XML
// ---------------------------------------------------------------------------------------------

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
