/**
 * Validates an ATIF trajectory as Harbor's v1.4 models would: the JSON schema beside this file
 * (types, required fields, no undeclared fields), then the models' validators: step ids 1, 2, ...;
 * fields only an agent step may carry; every observation result naming a tool call of its step;
 * cached tokens a subset of prompt tokens.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { Ajv } from "ajv";

const schema = JSON.parse(readFileSync(path.resolve(import.meta.dirname, "atif-v1.4.schema.json"), "utf8"));
const validate = new Ajv({ allErrors: true }).compile(schema);

const AGENT_ONLY = ["model_name", "reasoning_effort", "reasoning_content", "tool_calls", "metrics"];

interface Step {
  step_id: number;
  source: string;
  tool_calls?: { tool_call_id: string }[];
  observation?: { results: { source_call_id?: string | null }[] };
  metrics?: { prompt_tokens?: number; cached_tokens?: number };
  [field: string]: unknown;
}

/** What is wrong with `trajectory` as ATIF-v1.4, one line each (empty: valid). */
export function atifErrors(trajectory: unknown): string[] {
  if (!validate(trajectory)) {
    return (validate.errors ?? []).map(
      (e) => `${e.instancePath || "/"} ${e.message} ${JSON.stringify(e.params)}`,
    );
  }
  const errors: string[] = [];
  const steps = (trajectory as { steps: Step[] }).steps;
  steps.forEach((step, index) => {
    const at = `/steps/${index}`;
    if (step.step_id !== index + 1) errors.push(`${at}/step_id is ${step.step_id}, expected ${index + 1}`);
    if (step.source !== "agent") {
      for (const field of AGENT_ONLY) if (field in step) errors.push(`${at}/${field} only on agent steps`);
    }
    const ids = new Set((step.tool_calls ?? []).map((call) => call.tool_call_id));
    for (const result of step.observation?.results ?? []) {
      if (result.source_call_id != null && !ids.has(result.source_call_id)) {
        errors.push(`${at}/observation names tool call ${result.source_call_id}, not one of its step`);
      }
    }
    const { prompt_tokens: prompt, cached_tokens: cached } = step.metrics ?? {};
    if (prompt !== undefined && cached !== undefined && cached > prompt) {
      errors.push(`${at}/metrics/cached_tokens ${cached} > prompt_tokens ${prompt}`);
    }
  });
  return errors;
}
