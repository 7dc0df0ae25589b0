/**
 * `--tolerance-gates`, one definition for every command that decides against a baseline (`run`,
 * `compare`, `merge`, `report`): the option, its help lines and how it is read.
 */
import { parseToleranceGates, type ToleranceGates } from "../results/tolerance-gates.js";
import { type OptionSpec, type ParsedArgs, readList } from "./args.js";

export const TOLERANCE_GATES_OPTION: OptionSpec = { "tolerance-gates": { type: "string", multiple: true } };

export const TOLERANCE_GATES_HELP =
  "  --tolerance-gates LIST with a baseline: the largest increase in cost, tokens or turns a\n" +
  "                         scenario may show, e.g. input_tokens:+20%,cost_usd:+25% (a scenario's\n" +
  "                         own tolerance_gates override them)\n";

export function readToleranceGates(values: ParsedArgs["values"]): ToleranceGates {
  return parseToleranceGates(readList(values, "tolerance-gates"), "--tolerance-gates");
}
