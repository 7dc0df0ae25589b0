/**
 * The OpenTelemetry GenAI semantic conventions (v1.41.0, status Development) as far as the
 * otel-json export uses them, written from the conventions' attribute registry and span
 * definitions: each attribute's type, each operation's span kind and the attributes it requires.
 * `semconvViolations` lists what a span breaks (empty: it conforms), so a test can show the
 * violations it expects as well as their absence.
 */
import type { OtlpSpan } from "../../src/render/otel-json.js";

type AttributeType = "string" | "int" | "string[]";

/** The attribute registry: every attribute the export may set, with its type. */
const GENAI_ATTRIBUTES: Readonly<Record<string, AttributeType>> = {
  "gen_ai.operation.name": "string",
  "gen_ai.provider.name": "string",
  "gen_ai.agent.name": "string",
  "gen_ai.agent.id": "string",
  "gen_ai.conversation.id": "string",
  "gen_ai.request.model": "string",
  "gen_ai.response.model": "string",
  "gen_ai.response.id": "string",
  "gen_ai.response.finish_reasons": "string[]",
  "gen_ai.usage.input_tokens": "int",
  "gen_ai.usage.output_tokens": "int",
  "gen_ai.usage.cache_read.input_tokens": "int",
  "gen_ai.usage.cache_creation.input_tokens": "int",
  "gen_ai.tool.name": "string",
  "gen_ai.tool.type": "string",
  "gen_ai.tool.call.id": "string",
  "gen_ai.tool.call.arguments": "string",
  "error.type": "string",
  "process.exit.code": "int",
};

/** `gen_ai.operation.name`'s well-known values. */
const OPERATIONS = [
  "chat",
  "create_agent",
  "embeddings",
  "execute_tool",
  "generate_content",
  "invoke_agent",
  "text_completion",
];

/** `gen_ai.provider.name`'s well-known values (others are allowed, lowercase, dotted). */
export const WELL_KNOWN_PROVIDERS = [
  "anthropic",
  "aws.bedrock",
  "azure.ai.inference",
  "azure.ai.openai",
  "cohere",
  "deepseek",
  "gcp.gemini",
  "gcp.gen_ai",
  "gcp.vertex_ai",
  "groq",
  "ibm.watsonx.ai",
  "mistral_ai",
  "openai",
  "perplexity",
  "x_ai",
];

interface SpanDefinition {
  /** OTLP span kinds allowed: 1 INTERNAL, 3 CLIENT. */
  kinds: number[];
  required: string[];
  /** The attribute the span name follows the operation with (`chat {gen_ai.request.model}`). */
  nameSuffix: string;
}

/**
 * The spans' definitions: inference (`chat`), agent invocation (`invoke_agent`, INTERNAL for an
 * agent in the process, CLIENT for a remote one) and tool execution (`execute_tool`).
 */
const SPANS: Readonly<Record<string, SpanDefinition>> = {
  chat: {
    kinds: [3],
    required: ["gen_ai.operation.name", "gen_ai.provider.name"],
    nameSuffix: "gen_ai.request.model",
  },
  invoke_agent: {
    kinds: [1, 3],
    required: ["gen_ai.operation.name", "gen_ai.provider.name"],
    nameSuffix: "gen_ai.agent.name",
  },
  execute_tool: { kinds: [1], required: ["gen_ai.operation.name"], nameSuffix: "gen_ai.tool.name" },
};

type Value = OtlpSpan["attributes"][number]["value"];

function typeOf(value: Value): AttributeType | "other" {
  if ("stringValue" in value) return "string";
  if ("intValue" in value) return /^-?\d+$/.test(value.intValue) ? "int" : "other";
  if ("arrayValue" in value) {
    return value.arrayValue.values.every((v) => "stringValue" in v) ? "string[]" : "other";
  }
  return "other";
}

function scalar(value: Value | undefined): string | undefined {
  if (value === undefined) return undefined;
  if ("stringValue" in value) return value.stringValue;
  if ("intValue" in value) return value.intValue;
  return undefined;
}

/** What `span` breaks of the conventions, one line each. */
export function semconvViolations(span: OtlpSpan): string[] {
  const problems: string[] = [];
  const attributes = new Map(span.attributes.map((a) => [a.key, a.value]));
  if (attributes.size !== span.attributes.length) problems.push("an attribute is given twice");
  for (const [key, value] of attributes) {
    const type = GENAI_ATTRIBUTES[key];
    if (type === undefined) {
      if (key.startsWith("gen_ai.")) problems.push(`${key} is not in the GenAI attribute registry`);
      continue;
    }
    if (typeOf(value) !== type) problems.push(`${key} must be ${type}, is ${JSON.stringify(value)}`);
  }
  const operation = scalar(attributes.get("gen_ai.operation.name")) ?? "";
  if (!OPERATIONS.includes(operation))
    problems.push(`gen_ai.operation.name "${operation}" is not well-known`);
  const definition = SPANS[operation];
  if (definition) {
    for (const key of definition.required)
      if (!attributes.has(key)) problems.push(`${operation}: ${key} is required`);
    if (!definition.kinds.includes(span.kind)) problems.push(`${operation}: span kind ${span.kind}`);
    const suffix = scalar(attributes.get(definition.nameSuffix));
    const expectedName = suffix ? `${operation} ${suffix}` : operation;
    if (span.name !== expectedName) problems.push(`span name "${span.name}", expected "${expectedName}"`);
  }
  const provider = scalar(attributes.get("gen_ai.provider.name"));
  if (provider !== undefined && !/^[a-z][a-z0-9_]*(\.[a-z0-9_]+)*$/.test(provider)) {
    problems.push(`gen_ai.provider.name "${provider}" is not a lowercase dotted name`);
  }
  const model = scalar(attributes.get("gen_ai.request.model"));
  if (model !== undefined && provider !== undefined && model.startsWith(`${provider}:`)) {
    problems.push(`gen_ai.request.model "${model}" keeps its provider prefix`);
  }
  // Input tokens include the cached ones, so they are never fewer than the cache's.
  const tokens = (key: string) => Number(scalar(attributes.get(key)) ?? 0);
  const cached =
    tokens("gen_ai.usage.cache_read.input_tokens") + tokens("gen_ai.usage.cache_creation.input_tokens");
  if (attributes.has("gen_ai.usage.input_tokens") && tokens("gen_ai.usage.input_tokens") < cached) {
    problems.push(
      `gen_ai.usage.input_tokens ${tokens("gen_ai.usage.input_tokens")} excludes cached tokens (${cached})`,
    );
  }
  // Instrumentation leaves OK to the application; an error names its type.
  if ((span.status.code as number) === 1) problems.push("status OK set by instrumentation (leave it UNSET)");
  if (span.status.code === 2 && !attributes.has("error.type"))
    problems.push("status ERROR without error.type");
  if (span.status.code !== 2 && attributes.has("error.type"))
    problems.push("error.type on a span that did not fail");
  return problems;
}

/** Each span's violations, keyed by its name (a span that conforms is left out). */
export function semconvReport(spans: readonly OtlpSpan[]): Record<string, string[]> {
  const report: Record<string, string[]> = {};
  spans.forEach((span, index) => {
    const problems = semconvViolations(span);
    if (problems.length > 0) report[`${index}: ${span.name}`] = problems;
  });
  return report;
}
