/**
 * `--tolerance-gates`, one definition for every command that decides against a baseline (`run`,
 * `compare`, `merge`, `report`): the option, its help lines and how it is read.
 */
import { ConfigError } from "../errors.js";
import { parseToleranceGates, type ToleranceGates } from "../results/tolerance-gates.js";
import { type OptionSpec, type ParsedArgs, readList } from "./args.js";

export const TOLERANCE_GATES_OPTION: OptionSpec = { "tolerance-gates": { type: "string", multiple: true } };

export const TOLERANCE_GATES_HELP =
  "  --tolerance-gates LIST with a baseline: the largest increase in cost, tokens or turns a\n" +
  "                         scenario may show, e.g. input_tokens:+20%,cost_usd:+25% (a scenario's\n" +
  "                         own tolerance_gates override them)\n";

/** With `baseline` false (a command given no --baseline), a gate is a usage error: it has nothing to compare with. */
export function readToleranceGates(values: ParsedArgs["values"], { baseline = true } = {}): ToleranceGates {
  const gates = parseToleranceGates(readList(values, "tolerance-gates"), "--tolerance-gates");
  if (!baseline && Object.keys(gates).length > 0) {
    throw new ConfigError(
      "a tolerance gate compares with a baseline: add --baseline BASE.json (once for each base run)",
      "--tolerance-gates",
    );
  }
  return gates;
}
