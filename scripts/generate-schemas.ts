// Writes schema/scenario.schema.json and schema/rubric.schema.json from the formats' one definition
// (src/scenario/format.ts). `npm run schemas` runs it and formats the files with biome;
// tests/scenario/schema.test.ts fails when the committed files differ from what it writes.
import { writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { buildSchemaFiles } from "../src/scenario/schema-document.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
for (const [file, schema] of Object.entries(buildSchemaFiles())) {
  writeFileSync(path.join(root, file), `${JSON.stringify(schema, null, 2)}\n`);
  process.stdout.write(`wrote ${file}\n`);
}
