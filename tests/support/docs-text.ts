import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";

export const REPOSITORY_ROOT = path.resolve(import.meta.dirname, "../..");

/** A file of the repository, as text. */
export function readRepositoryFile(relative: string): string {
  return readFileSync(path.join(REPOSITORY_ROOT, relative), "utf8");
}

/**
 * The user documentation, README.md then docs/*.md, as one text: a registry's entries must be
 * described somewhere in it, wherever a section moves between the README and a docs page.
 */
export function readUserDocs(): string {
  const pages = readdirSync(path.join(REPOSITORY_ROOT, "docs"))
    .filter((name) => name.endsWith(".md"))
    .sort()
    .map((name) => readRepositoryFile(path.join("docs", name)));
  return [readRepositoryFile("README.md"), ...pages].join("\n");
}

/** The rows of the Markdown table whose header row starts with `| firstHeader |`, as cells. */
export function markdownTableRows(text: string, firstHeader: string): string[][] {
  const lines = text.split("\n");
  const start = lines.findIndex((line) => line.replace(/\s+/g, " ").startsWith(`| ${firstHeader} |`));
  if (start < 0) throw new Error(`no Markdown table headed "${firstHeader}"`);
  const rows: string[][] = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith("|")) break;
    rows.push(
      line
        .slice(1, line.lastIndexOf("|"))
        .split("|")
        .map((cell) => cell.trim()),
    );
  }
  return rows;
}
