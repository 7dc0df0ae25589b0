import { describe, expect, it } from "vitest";
import { renderJunitXml } from "../../src/render/junit.js";
import { makeReport, makeScenarioReport, makeTrial } from "../support/report-factory.js";
import {
  CDATA_END,
  IMG_PAYLOAD,
  makeSampleReport,
  SAMPLE_RUN,
  SCRIPT_PAYLOAD,
} from "../support/sample-report.js";

// ---- a small strict XML 1.0 reader: rejects what a conforming parser rejects for our subset ----

interface XmlElement {
  name: string;
  attributes: Record<string, string>;
  children: (XmlElement | string)[];
}

function isXmlChar(code: number): boolean {
  return (
    code === 0x9 ||
    code === 0xa ||
    code === 0xd ||
    (code >= 0x20 && code <= 0xd7ff) ||
    (code >= 0xe000 && code <= 0xfffd) ||
    (code >= 0x10000 && code <= 0x10ffff)
  );
}

function decodeEntities(text: string, where: number): string {
  return text.replace(/&([^;\s&<]*);?/g, (whole, body: string) => {
    if (!whole.endsWith(";")) throw new Error(`bare & near offset ${where}`);
    const named: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };
    if (body in named) return named[body] as string;
    const numeric = /^#(?:x([0-9a-fA-F]+)|([0-9]+))$/.exec(body);
    if (!numeric) throw new Error(`unknown entity &${body}; near offset ${where}`);
    const code = numeric[1] ? Number.parseInt(numeric[1], 16) : Number(numeric[2]);
    if (!isXmlChar(code)) throw new Error(`character reference &${body}; is not an XML 1.0 character`);
    return String.fromCodePoint(code);
  });
}

function parseStrictXml(text: string): XmlElement {
  for (const ch of text) {
    const code = ch.codePointAt(0) as number;
    if (!isXmlChar(code)) throw new Error(`forbidden character U+${code.toString(16).padStart(4, "0")}`);
  }
  const declaration = /^<\?xml version="1\.0" encoding="UTF-8"\?>/.exec(text);
  if (!declaration) throw new Error("missing XML declaration");
  let pos = declaration[0].length;
  const name = /[A-Za-z_:][\w.:-]*/y;

  const skipSpace = () => {
    while (pos < text.length && /\s/.test(text[pos] as string)) pos++;
  };
  const readName = (): string => {
    name.lastIndex = pos;
    const m = name.exec(text);
    if (!m) throw new Error(`expected a name at offset ${pos}`);
    pos += m[0].length;
    return m[0];
  };
  const parseElement = (): XmlElement => {
    if (text[pos] !== "<") throw new Error(`expected < at offset ${pos}`);
    pos++;
    const element: XmlElement = { name: readName(), attributes: {}, children: [] };
    for (;;) {
      const before = pos;
      skipSpace();
      if (text.startsWith("/>", pos)) {
        pos += 2;
        return element;
      }
      if (text[pos] === ">") {
        pos++;
        break;
      }
      if (pos === before) throw new Error(`expected whitespace before an attribute at offset ${pos}`);
      const attr = readName();
      if (attr in element.attributes) throw new Error(`duplicate attribute ${attr}`);
      if (text[pos] !== "=") throw new Error(`expected = after ${attr}`);
      const quote = text[pos + 1];
      if (quote !== '"' && quote !== "'") throw new Error(`unquoted value for ${attr}`);
      const end = text.indexOf(quote, pos + 2);
      if (end < 0) throw new Error(`unterminated value for ${attr}`);
      const raw = text.slice(pos + 2, end);
      if (raw.includes("<")) throw new Error(`< in the value of ${attr}`);
      // Parsers normalise literal whitespace in attributes to spaces (XML 1.0 §3.3.3).
      element.attributes[attr] = decodeEntities(raw.replace(/[\t\n\r]/g, " "), pos);
      pos = end + 1;
    }
    for (;;) {
      const next = text.indexOf("<", pos);
      if (next < 0) throw new Error(`unclosed <${element.name}>`);
      const chunk = text.slice(pos, next);
      if (chunk.includes("]]>")) throw new Error("]]> in character data");
      if (chunk) element.children.push(decodeEntities(chunk, pos));
      pos = next;
      if (text.startsWith("</", pos)) {
        pos += 2;
        const closing = readName();
        if (closing !== element.name) throw new Error(`</${closing}> closes <${element.name}>`);
        skipSpace();
        if (text[pos] !== ">") throw new Error(`expected > at offset ${pos}`);
        pos++;
        return element;
      }
      if (text.startsWith("<!", pos) || text.startsWith("<?", pos))
        throw new Error(`unexpected markup at ${pos}`);
      element.children.push(parseElement());
    }
  };

  skipSpace();
  const root = parseElement();
  skipSpace();
  if (pos !== text.length) throw new Error(`content after the root element at offset ${pos}`);
  return root;
}

const elements = (e: XmlElement, name?: string): XmlElement[] =>
  e.children.filter((c): c is XmlElement => typeof c !== "string" && (name === undefined || c.name === name));
const textOf = (e: XmlElement): string => e.children.filter((c) => typeof c === "string").join("");

/** The JUnit shape that Jenkins, GitLab and the GitHub report actions read. */
function checkJunitShape(root: XmlElement): void {
  expect(root.name).toBe("testsuites");
  for (const suite of elements(root)) {
    expect(suite.name).toBe("testsuite");
    for (const attr of ["name", "tests", "failures", "errors", "skipped", "time"]) {
      expect(suite.attributes[attr], `testsuite@${attr}`).toBeDefined();
    }
    const order = elements(suite).map((c) => c.name);
    expect(order.join(" ")).toMatch(/^(properties ?)?(testcase ?)*(system-out ?)?(system-err)?$/);
    let failures = 0;
    let errors = 0;
    let skipped = 0;
    for (const testcase of elements(suite, "testcase")) {
      expect(testcase.attributes.name).toBeTruthy();
      expect(testcase.attributes.classname).toBeTruthy();
      expect(testcase.attributes.time).toMatch(/^\d+(\.\d+)?$/);
      const kids = elements(testcase).map((c) => c.name);
      expect(kids.join(" ")).toMatch(/^((failure|error|skipped) ?)?(system-out ?)?(system-err)?$/);
      if (kids.includes("failure")) failures++;
      if (kids.includes("error")) errors++;
      if (kids.includes("skipped")) skipped++;
    }
    expect(Number(suite.attributes.tests)).toBe(elements(suite, "testcase").length);
    expect(Number(suite.attributes.failures)).toBe(failures);
    expect(Number(suite.attributes.errors)).toBe(errors);
    expect(Number(suite.attributes.skipped)).toBe(skipped);
  }
}

describe("the strict XML reader used here", () => {
  it("rejects what real parsers reject", () => {
    const ok = `<?xml version="1.0" encoding="UTF-8"?>\n<a b="1">x &amp; y</a>\n`;
    expect(parseStrictXml(ok).children).toEqual(["x & y"]);
    const head = `<?xml version="1.0" encoding="UTF-8"?>`;
    for (const bad of [
      `${head}<a>x & y</a>`,
      `${head}<a>x</b>`,
      `${head}<a b=1/>`,
      `${head}<a b="<"/>`,
      `${head}<a>]]></a>`,
      `${head}<a>\u001b</a>`,
      `${head}<a>&#27;</a>`,
      `${head}<a b="1" b="2"/>`,
      `${head}<a/><a/>`,
      `${head}<a>\ud800</a>`,
    ]) {
      expect(() => parseStrictXml(bad), bad).toThrow();
    }
  });
});

describe("renderJunitXml", () => {
  const report = makeSampleReport();
  const xml = renderJunitXml(report);
  const root = parseStrictXml(xml);

  it("is well-formed XML in the JUnit shape, with totals on <testsuites>", () => {
    checkJunitShape(root);
    expect(root.attributes).toMatchObject({ tests: "6", failures: "1", errors: "1", skipped: "1" });
    // 4.2 + 6.5 + 0.15 + 2.1 + 2.2 + 0 seconds, summed over trials.
    expect(Number(root.attributes.time)).toBeCloseTo(15.15, 3);
    expect(root.attributes.timestamp).toBe("2024-05-01T10:00:00");
  });

  it("has one testsuite per scenario and one testcase per trial", () => {
    const suites = elements(root, "testsuite");
    expect(suites.map((s) => s.attributes.name)).toEqual(["create_and_link", "search_notes@terse"]);
    const cases = suites.flatMap((s) => elements(s, "testcase"));
    expect(cases.map((c) => [c.attributes.classname, c.attributes.name, c.attributes.time])).toEqual([
      ["capture", "create_and_link #1", "4.200"],
      ["capture", "create_and_link #2", "6.500"],
      ["capture", "create_and_link #3", "0.150"],
      ["search", "search_notes@terse #1", "2.100"],
      ["search", "search_notes@terse #2", "2.200"],
      ["search", "search_notes@terse #3", "0.000"],
    ]);
    const properties = Object.fromEntries(
      elements(elements(suites[1] as XmlElement, "properties")[0] as XmlElement).map((p) => [
        p.attributes.name,
        p.attributes.value,
      ]),
    );
    expect(properties).toMatchObject({ category: "search", variant: "terse", flakiness: "stable_pass" });
  });

  it("lists the failed gates and the reason in <failure>, and the judge's issues in its text", () => {
    const failing = elements(elements(root, "testsuite")[0] as XmlElement, "testcase")[1] as XmlElement;
    const failure = elements(failing, "failure")[0] as XmlElement;
    expect(failure.attributes.message).toBe(
      "2 of 3 gates failed; judge score 0.4 < 0.7; failed gates: command_json_path (the two notes are linked), file_contains",
    );
    const body = textOf(failure);
    expect(body).toContain("Reason: 2 of 3 gates failed; judge score 0.4 < 0.7");
    expect(body).toContain(
      `- command_json_path (the two notes are linked): $.links: expected len >= 1, got 0 ${IMG_PAYLOAD}`,
    );
    expect(body).toContain(`- Printed ${SCRIPT_PAYLOAD} to the user`);
    // ]]> survives as text; the ESC and NUL XML cannot carry are shown as control pictures.
    expect(body).toContain(`does not contain "CAP" ␛[31mred␛[0m and a NUL ␀ here ${CDATA_END}`);
    expect(textOf(elements(failing, "system-out")[0] as XmlElement)).toBe(
      "transcript: trials/create_and_link/2/transcript.md\nevents: trials/create_and_link/2/events.jsonl",
    );
  });

  it("reports an infrastructure error as <error> and a skipped trial as <skipped>", () => {
    const [first, second] = elements(root, "testsuite") as [XmlElement, XmlElement];
    const errored = elements(first, "testcase")[2] as XmlElement;
    expect(elements(errored, "error")[0]?.attributes).toEqual({
      message: "setup failed: `my-tool init` exited 127",
      type: "infra_error",
    });
    expect(elements(errored, "failure")).toHaveLength(0);
    const skipped = elements(second, "testcase")[2] as XmlElement;
    expect(elements(skipped, "skipped")[0]?.attributes.message).toBe("cancelled: the run's budget ran out");
    const passed = elements(first, "testcase")[0] as XmlElement;
    expect(elements(passed).map((e) => e.name)).toEqual(["system-out"]);
  });

  it("keeps line breaks and tabs of a message attribute, and never emits a lone surrogate", () => {
    const trial = makeTrial({
      trial: 1,
      outcome: "fail",
      reason: "line one\n\tline two \ud83d end \ud83d\ude00",
    });
    const odd = makeReport(
      [makeScenarioReport({ id: "odd & <id>", variant: null, category: 'c"q', trials: [trial] })],
      SAMPLE_RUN,
    );
    const parsed = parseStrictXml(renderJunitXml(odd));
    checkJunitShape(parsed);
    const testcase = elements(elements(parsed, "testsuite")[0] as XmlElement, "testcase")[0] as XmlElement;
    expect(testcase.attributes).toMatchObject({ classname: 'c"q', name: "odd & <id> #1" });
    expect(elements(testcase, "failure")[0]?.attributes.message).toBe("line one\n\tline two \ufffd end 😀");
  });

  it("renders an empty report as an empty, valid document", () => {
    const empty = parseStrictXml(renderJunitXml(makeReport([], SAMPLE_RUN)));
    checkJunitShape(empty);
    expect(empty.attributes).toMatchObject({ tests: "0", failures: "0", errors: "0", skipped: "0" });
  });
});

describe("renderJunitXml with the repository root", () => {
  const report = makeSampleReport();
  const files = (xml: string) =>
    elements(parseStrictXml(xml), "testsuite").flatMap((suite) => [
      ...elements(suite, "testcase").map((c) => c.attributes.file),
      elements(elements(suite, "properties")[0] as XmlElement).find((p) => p.attributes.name === "source")
        ?.attributes.value,
    ]);

  it("names scenario files relative to it, as annotating actions expect", () => {
    const relative = new Set(files(renderJunitXml(report, { root: "/repo" })));
    expect(relative).toEqual(
      new Set([
        "scenarios/create_and_link.yaml",
        "scenarios/search_notes.yaml",
        "scenarios/create_and_link.yaml:1",
        "scenarios/search_notes.yaml:1",
      ]),
    );
    expect(new Set(files(renderJunitXml(report, { root: "/repo/" })))).toEqual(relative);
  });

  it("keeps a path outside the root, and every path without a root, as the report has it", () => {
    expect(new Set(files(renderJunitXml(report, { root: "/elsewhere" })))).toEqual(
      new Set(files(renderJunitXml(report))),
    );
    expect(files(renderJunitXml(report, { root: "/rep" }))).toContain("/repo/scenarios/create_and_link.yaml");
  });
});
