#!/usr/bin/env node
// Keeps the action's inputs/outputs tables in docs/action.md in step with action.yml.
// `node scripts/sync-action-docs.mjs` rewrites them; `--check` fails (exit 1) when they differ.
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const action = parse(readFileSync(path.join(root, "action.yml"), "utf8"));
const guidePath = path.join(root, "docs/action.md");
const guide = readFileSync(guidePath, "utf8");

const cell = (text) =>
  String(text ?? "")
    .replace(/\s+/g, " ")
    .trim()
    .replace(/\|/g, "\\|");
const code = (text) => (text === "" ? '`""`' : `\`${String(text).replace(/`/g, "'")}\``);

const inputs = [
  "| input | default | description |",
  "|---|---|---|",
  ...Object.entries(action.inputs ?? {}).map(
    ([name, spec]) =>
      `| \`${name}\` | ${spec.required ? "**required**" : code(spec.default ?? "")} | ${cell(spec.description)} |`,
  ),
].join("\n");
const outputs = [
  "| output | description |",
  "|---|---|",
  ...Object.entries(action.outputs ?? {}).map(
    ([name, spec]) => `| \`${name}\` | ${cell(spec.description)} |`,
  ),
].join("\n");

function replaceBlock(text, name, body) {
  const pattern = new RegExp(`(<!-- ${name}:start -->)[\\s\\S]*?(<!-- ${name}:end -->)`);
  if (!pattern.test(text)) throw new Error(`docs/action.md has no <!-- ${name}:start/end --> markers`);
  return text.replace(pattern, `$1\n${body}\n$2`);
}

const next = replaceBlock(replaceBlock(guide, "action-inputs", inputs), "action-outputs", outputs);
if (process.argv.includes("--check")) {
  if (next !== guide) {
    console.error(
      "docs/action.md's action tables differ from action.yml: run `node scripts/sync-action-docs.mjs` and commit.",
    );
    process.exit(1);
  }
  console.log("docs/action.md's action tables match action.yml.");
} else {
  writeFileSync(guidePath, next);
  console.log("docs/action.md's action tables updated from action.yml.");
}
