/**
 * A trial's model as trace formats name it: the provider's own id (`gpt-5.2`, not the harness's
 * `openai:gpt-5.2`) and the provider, under OpenTelemetry's `gen_ai.provider.name` values
 * (semantic conventions 1.41.0: `anthropic`, `openai`, `gcp.gemini`). Pure.
 */
import { splitModelId } from "../model-id.js";

/** For an agent without a model (oracle, null): the harness itself answered, no provider did. */
const NO_MODEL_PROVIDER = "llm_tool_test";

/**
 * Agents whose model ids are their own, passed to their CLI as written rather than read as
 * `provider:model` (the registry's `apiKeyVariable` agents): their provider is fixed.
 */
const OWN_MODEL_PROVIDERS: Readonly<Record<string, string>> = { "gemini-cli": "gcp.gemini" };

export interface ExportedModel {
  /** The provider's id of the model; null when the trial had none. */
  model: string | null;
  provider: string;
}

export function exportedModel(agent: string, model: string | null | undefined): ExportedModel {
  if (!model) return { model: null, provider: NO_MODEL_PROVIDER };
  const own = Object.hasOwn(OWN_MODEL_PROVIDERS, agent) ? OWN_MODEL_PROVIDERS[agent] : undefined;
  if (own) return { model, provider: own };
  const { prefix, model: id } = splitModelId(model);
  // A bare id is Anthropic's, as everywhere in the harness.
  return { model: id, provider: prefix ?? "anthropic" };
}
