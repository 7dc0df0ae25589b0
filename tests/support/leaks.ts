/** Finds canary secrets in a run's outputs: plain, reversed, or base64-encoded at any alignment. */
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";

/**
 * The forms a canary can take in text: itself, reversed, and its base64 at each byte alignment
 * (standard and URL-safe; every encoding of a text containing the canary contains one of these).
 */
export function leakForms(canary: string): { form: string; text: string }[] {
  const forms = [
    { form: "plain", text: canary },
    { form: "reversed", text: [...canary].reverse().join("") },
  ];
  const bytes = Buffer.from(canary);
  for (let skip = 0; skip < 3; skip += 1) {
    const usable = Math.floor((bytes.length - skip) / 3) * 3;
    const encoded = bytes.subarray(skip, skip + usable).toString("base64");
    forms.push({ form: `base64 (alignment ${skip})`, text: encoded });
    forms.push({
      form: `base64url (alignment ${skip})`,
      text: Buffer.from(encoded, "base64").toString("base64url"),
    });
  }
  return forms;
}

/** Every file under `dir`, recursively. */
async function listFilesDeep(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries.filter((entry) => entry.isFile()).map((entry) => path.join(entry.parentPath, entry.name));
}

/**
 * "<where>: <canary name> (<form>)" for every canary form found in the named texts, wrapped base64
 * lines joined first (a line break must not hide an encoded canary). Empty when nothing leaked.
 */
export function findLeaks(texts: Record<string, string>, canaries: Record<string, string>): string[] {
  const found: string[] = [];
  for (const [where, raw] of Object.entries(texts)) {
    const joined = raw.replace(/\\n|\r?\n/g, "");
    for (const [name, canary] of Object.entries(canaries)) {
      for (const { form, text } of leakForms(canary)) {
        if (raw.includes(text) || joined.includes(text)) found.push(`${where}: ${name} (${form})`);
      }
    }
  }
  return found;
}

/** The texts of every file in a run's output folder, by path relative to it. */
export async function readOutputTree(outDir: string): Promise<Record<string, string>> {
  const texts: Record<string, string> = {};
  for (const file of await listFilesDeep(outDir)) {
    texts[path.relative(outDir, file)] = await readFile(file, "utf8");
  }
  return texts;
}
