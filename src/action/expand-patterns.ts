/**
 * The `scenarios` input takes paths and globs (`scenarios/**\/*.yaml`, `suites/{a,b}`); the loader
 * takes paths. Globs are expanded here: `**` any depth, `*` and `?` within a name, `{a,b}`
 * alternatives, `[abc]` classes. A glob that matches nothing is the user's mistake.
 */
import type { Dirent } from "node:fs";
import { readdir } from "node:fs/promises";
import path from "node:path";
import { ConfigError } from "../errors.js";

const GLOB_CHARS = /[*?[{]/;
const SKIPPED_DIRS = new Set(["node_modules", ".git"]);

export function isGlob(pattern: string): boolean {
  return GLOB_CHARS.test(pattern);
}

/** A glob (with `/` separators) as an anchored regular expression over relative paths. */
export function compileGlob(pattern: string): RegExp {
  let source = "";
  for (let i = 0; i < pattern.length; i += 1) {
    const char = pattern[i] as string;
    if (char === "*") {
      if (pattern[i + 1] === "*") {
        const slash = pattern[i + 2] === "/";
        source += slash ? "(?:[^/]*/)*" : ".*";
        i += slash ? 2 : 1;
      } else {
        source += "[^/]*";
      }
    } else if (char === "?") {
      source += "[^/]";
    } else if (char === "{") {
      const end = pattern.indexOf("}", i);
      if (end === -1) {
        source += "\\{";
        continue;
      }
      const options = pattern.slice(i + 1, end).split(",");
      source += `(?:${options.map((option) => compileGlob(option).source.slice(1, -1)).join("|")})`;
      i = end;
    } else if (char === "[") {
      const end = pattern.indexOf("]", i + 1);
      if (end === -1) {
        source += "\\[";
        continue;
      }
      const body = pattern
        .slice(i + 1, end)
        .replace(/^!/, "^")
        .replace(/\\/g, "\\\\");
      source += `[${body}]`;
      i = end;
    } else {
      source += char.replace(/[.+^$()|\\\]]/g, "\\$&");
    }
  }
  return new RegExp(`^${source}$`);
}

/** Paths as given, globs replaced by the files and folders they match (sorted). */
export async function expandPatterns(
  patterns: string[],
  cwd: string,
  input = "scenarios",
): Promise<string[]> {
  const result: string[] = [];
  for (const pattern of patterns) {
    if (!isGlob(pattern)) {
      result.push(pattern);
      continue;
    }
    const normalized = pattern.replace(/\\/g, "/").replace(/^\.\//, "");
    const segments = normalized.split("/");
    const firstGlob = segments.findIndex((segment) => isGlob(segment));
    const base = segments.slice(0, firstGlob).join("/");
    const regex = compileGlob(segments.slice(firstGlob).join("/"));
    const root = path.resolve(cwd, base || ".");
    const matches = (await walk(root)).filter((relative) => regex.test(relative));
    if (matches.length === 0) {
      throw new ConfigError(
        `input "${input}": the pattern ${JSON.stringify(pattern)} matches no file under ${cwd}`,
      );
    }
    result.push(...matches.sort().map((relative) => path.join(root, relative)));
  }
  return result;
}

/** Every file and folder under root, as `/`-separated relative paths. */
async function walk(root: string): Promise<string[]> {
  const found: string[] = [];
  const visit = async (dir: string, prefix: string) => {
    let entries: Dirent[];
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      if (SKIPPED_DIRS.has(entry.name)) continue;
      const relative = prefix ? `${prefix}/${entry.name}` : entry.name;
      found.push(relative);
      if (entry.isDirectory()) await visit(path.join(dir, entry.name), relative);
    }
  };
  await visit(root, "");
  return found;
}
