import { describe, expect, it } from "vitest";
import {
  escapeMarkdownCell,
  escapePlainText,
  markdownCode,
  markdownFence,
  markdownHtml,
  markdownText,
  stripControls,
} from "../../src/render/escape.js";

const ZWSP = "\u200B";

describe("stripControls", () => {
  it("drops C0 but tab and line feed, DEL, C1, bidi overrides and isolates, and ANSI sequences whole", () => {
    expect(stripControls("a\u0000b\u0007c\td\ne\u007Ff\u0085g\u009Bh")).toBe("abc\td\nefgh");
    expect(stripControls("\u001b[2J\u001b[31mred\u001b[0m \u001b]0;title\u0007x")).toBe("red x");
    expect(stripControls("abc\u202Eevil\u2066i\u2069\u200Fz")).toBe("abceviliz");
    expect(stripControls("one\r\ntwo\rthree")).toBe("one\ntwo\nthree");
  });
});

describe("markdownText", () => {
  it("breaks mentions and issue references with a zero-width space GitHub does not resolve", () => {
    expect(markdownText("hi @someone and @org/team")).toBe(`hi @${ZWSP}someone and @${ZWSP}org/team`);
    expect(markdownText("see #123 and GH-45")).toBe(`see \\#${ZWSP}123 and GH-${ZWSP}45`);
    // Not a mention on GitHub (a word character before the @): left as written.
    expect(markdownText("mail a@b.example")).toBe("mail a@b.example");
  });

  it("turns HTML into text and Markdown syntax into literal characters, on one line", () => {
    expect(markdownText("<img src=x onerror=alert(1)>")).toBe("&lt;img src=x onerror=alert(1)&gt;");
    expect(markdownText("</details><!-- x")).toBe("&lt;/details&gt;&lt;!-- x");
    expect(markdownText("[x](javascript:alert(1))")).toBe("\\[x\\](javascript:alert(1))");
    expect(markdownText("*a* _b_ `c` ~d~ $e$ | f \\")).toBe(
      "\\*a\\* \\_b\\_ \\`c\\` \\~d\\~ \\$e\\$ \\| f \\\\",
    );
    expect(markdownText("snake_case_name &amp;")).toBe("snake_case_name &amp;amp;");
    expect(markdownText("two\nlines\tand\u0000nul")).toBe("two lines andnul");
  });

  it("escapes a marker that would start a heading, list or quote", () => {
    expect(markdownText("# title")).toBe("\\# title");
    expect(markdownText("- item")).toBe("\\- item");
    expect(markdownText("1. item")).toBe("1\\. item");
    expect(markdownText("> quote")).toBe("&gt; quote");
    expect(markdownText("0.1.0")).toBe("0.1.0");
  });
});

describe("markdownCode", () => {
  it("keeps the text's tags and mentions out of the source with a zero-width space", () => {
    expect(markdownCode("</details><!-- x")).toBe(`\`<${ZWSP}/details><${ZWSP}!-- x\``);
    expect(markdownCode("@octocat")).toBe(`\`@${ZWSP}octocat\``);
    expect(markdownCode("a < b")).toBe("`a < b`");
    expect(markdownCode("id@variant")).toBe("`id@variant`");
  });

  it("keeps fences short: backtick runs over 15 are split", () => {
    const span = markdownCode("`".repeat(40));
    expect(Math.max(...(span.match(/`+/g) ?? []).map((run) => run.length))).toBe(16);
  });
});

describe("escapeMarkdownCell", () => {
  it("escapes every pipe of a code span so GFM never splits the cell, even after a backslash", () => {
    expect(escapeMarkdownCell(markdownCode("a|b"))).toBe("`a\\|b`");
    expect(escapeMarkdownCell(markdownCode("a\\|b"))).toBe(`\`a\\${ZWSP}\\|b\``);
  });
});

describe("markdownFence", () => {
  it("fences with more backticks than any run inside, indented, controls stripped", () => {
    expect(markdownFence("a\n```\nb\u001b[31m", "  ")).toBe("  ````\n  a\n  ```\n  b\n  ````");
    expect(markdownFence("plain")).toBe("```\nplain\n```");
  });
});

describe("markdownHtml", () => {
  it("escapes HTML, and Markdown punctuation as references", () => {
    expect(markdownHtml("<b>[x](y)</b> @me")).toBe(`&lt;b&gt;&#91;x&#93;(y)&lt;/b&gt; @${ZWSP}me`);
    expect(markdownHtml("snake_case _em_")).toBe("snake_case &#95;em&#95;");
    expect(markdownHtml("it's #1")).toBe(`it&#39;s #${ZWSP}1`);
  });
});

describe("escapePlainText", () => {
  it("shows C0 controls as pictures and drops C1 and bidi overrides", () => {
    expect(escapePlainText("\u001b[2Jx\u0000\n")).toBe("␛[2Jx␀␊");
    expect(escapePlainText("a\u009B31mb\u202Ec")).toBe("a31mbc");
  });
});
