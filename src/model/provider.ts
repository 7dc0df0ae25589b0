/**
 * Which provider a model id names, and the one ModelClient that sends each call to its provider's
 * client. A model id is `provider:model` (`openai:gpt-5.2`, `anthropic:claude-haiku-4-5`); a bare id
 * is Anthropic's, as before providers were named. Everything else in the run (reports, prices, the
 * judge) keeps the id as written, so two providers' models never mix.
 */
import { suggestKey } from "../did-you-mean.js";
import { ConfigError } from "../errors.js";
import {
  isProviderName,
  PROVIDERS,
  type ProviderModel,
  type ProviderName,
  providerOfModel,
  splitModelId,
} from "../model-id.js";
import { ModelCallError, type ModelClient } from "./model-client.js";

export { PROVIDERS, type ProviderModel, type ProviderName, providerOfModel };

/** The environment variable each provider's key is read from (by the front ends only). */
export const API_KEY_VARIABLES: Readonly<Record<ProviderName, string>> = {
  anthropic: "ANTHROPIC_API_KEY",
  openai: "OPENAI_API_KEY",
};

/** Each provider's name in sentences ("runs OpenAI models only"). */
export const PROVIDER_LABELS: Readonly<Record<ProviderName, string>> = {
  anthropic: "Anthropic",
  openai: "OpenAI",
};

/** The provider and the provider's own id; a ConfigError (with a did-you-mean) for an unknown prefix. */
export function parseModelId(id: string, where?: string): ProviderModel {
  const { prefix, model } = splitModelId(id);
  if (prefix === null) return { provider: "anthropic", model };
  if (isProviderName(prefix)) return { provider: prefix, model };
  const suggestion = suggestKey(prefix, PROVIDERS);
  const hint = suggestion ? `did you mean "${suggestion}:${model}"? ` : "";
  throw new ConfigError(
    `unknown provider "${prefix}" in model id "${id}"; ${hint}model ids are PROVIDER:MODEL with PROVIDER one of ${PROVIDERS.join(", ")} (a bare id is Anthropic's; any OpenAI-compatible server is "openai:", e.g. openai:${model})`,
    where,
  );
}

/**
 * One ModelClient over the providers' clients: each call goes to its model's provider, with the
 * prefix taken off. A provider without a client (no key) fails the call; the run's setup checks
 * the keys first, so this only guards against a model that setup did not see.
 */
export function createProviderRouter(clients: Partial<Record<ProviderName, ModelClient>>): ModelClient {
  return {
    async createMessage(params, options) {
      const { provider, model } = parseModelId(params.model);
      const client = clients[provider];
      if (!client) {
        throw new ModelCallError(
          `no ${API_KEY_VARIABLES[provider]} was given, so the ${provider} model "${params.model}" cannot be called`,
          null,
          0,
        );
      }
      return client.createMessage({ ...params, model }, options);
    },
  };
}
