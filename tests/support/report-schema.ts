import { readFileSync } from "node:fs";
import path from "node:path";
import { Ajv } from "ajv";

const schema = JSON.parse(
  readFileSync(path.resolve(import.meta.dirname, "../../schema/report.schema.json"), "utf8"),
);
const ajv = new Ajv({ allErrors: true, validateFormats: false });
const validate = ajv.compile(schema);

/** Validates a report against the published schema; returns readable errors (empty when valid). */
export function reportSchemaErrors(report: unknown): string[] {
  if (validate(report)) return [];
  return (validate.errors ?? []).map(
    (e) => `${e.instancePath || "/"} ${e.message} ${JSON.stringify(e.params)}`,
  );
}
