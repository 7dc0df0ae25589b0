/**
 * Every relative link of the user docs (README.md and docs/*.md) resolves: its file exists, and
 * its `#anchor` is a heading of that file, as GitHub renders headings into anchors. Sections move
 * between the README and the docs pages; a link left behind fails here.
 */
import { existsSync, readdirSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { REPOSITORY_ROOT, readRepositoryFile } from "./support/docs-text.js";

const PAGES = [
  "README.md",
  ...readdirSync(path.join(REPOSITORY_ROOT, "docs"))
    .filter((name) => name.endsWith(".md"))
    .sort()
    .map((name) => `docs/${name}`),
];

/** The text outside fenced code blocks, with inline code spans blanked: links there are examples. */
function prose(markdown: string): string {
  return markdown.replace(/^```[\s\S]*?^```/gm, "").replace(/`[^`\n]*`/g, "``");
}

/** GitHub's anchors of a page's headings (github-slugger): lower case, punctuation dropped, spaces to dashes, repeats numbered. */
function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const [, heading] of markdown.replace(/^```[\s\S]*?^```/gm, "").matchAll(/^#{1,6} +(.+?) *#*$/gm)) {
    const text = (heading as string).replace(/\[([^\]]*)\]\([^)]*\)/g, "$1");
    const slug = text
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\p{M} _-]/gu, "")
      .replace(/ /g, "-");
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

/** The page's relative links (not http:, mailto:), as [target file relative to the repository, anchor]. */
function relativeLinks(page: string): { link: string; file: string; anchor: string | undefined }[] {
  const links = [...prose(readRepositoryFile(page)).matchAll(/\]\(([^)\s]+)(?: "[^"]*")?\)/g)].map(
    (match) => match[1] as string,
  );
  return links
    .filter((link) => !/^[a-z][a-z+.-]*:/i.test(link))
    .map((link) => {
      const [target, anchor] = link.split("#") as [string, string | undefined];
      const file =
        target === "" ? page : path.posix.normalize(path.posix.join(path.posix.dirname(page), target));
      return { link, file, anchor };
    });
}

describe("the user docs' relative links", () => {
  it.each(PAGES)("%s: every linked file exists and every anchor is a heading of it", (page) => {
    const broken: string[] = [];
    for (const { link, file, anchor } of relativeLinks(page)) {
      if (!existsSync(path.join(REPOSITORY_ROOT, file))) {
        broken.push(`${link}: no file ${file}`);
        continue;
      }
      if (anchor === undefined) continue;
      if (!file.endsWith(".md")) {
        broken.push(`${link}: an anchor into a file that is not Markdown`);
        continue;
      }
      if (!headingAnchors(readRepositoryFile(file)).has(anchor))
        broken.push(`${link}: no heading of ${file} has the anchor #${anchor}`);
    }
    expect(broken).toEqual([]);
  });

  it("reads anchors as GitHub makes them: punctuation dropped, repeats numbered, code blocks skipped", () => {
    expect([
      ...headingAnchors(
        "# Gates (layer 2)\n## Guidance: what each agent is shown\n### `no_loops`\n## FAQ\n## FAQ\n```\n# not a heading\n```\n",
      ),
    ]).toEqual(["gates-layer-2", "guidance-what-each-agent-is-shown", "no_loops", "faq", "faq-1"]);
  });
});
