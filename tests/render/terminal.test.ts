import { describe, expect, it } from "vitest";
import { renderTerminalSummary } from "../../src/render/terminal.js";
import { makeReport, makeScenarioReport, makeTrial } from "../support/report-factory.js";

describe("renderTerminalSummary: calls command_pattern missed", () => {
  it("says under the scenario that its pattern missed calls, with one example, inert", () => {
    const long = `ledger-tool --file=main.journal ${"x".repeat(60)}`;
    const report = makeReport([
      makeScenarioReport({
        id: "ledger",
        trials: [
          makeTrial({ trial: 1, outcome: "pass" }),
          makeTrial({
            trial: 2,
            outcome: "pass",
            command_pattern_misses: ["ledger-tool --help\u001b[31m", long],
          }),
          makeTrial({ trial: 3, outcome: "pass", command_pattern_misses: [long] }),
        ],
      }),
      makeScenarioReport({ id: "other", trials: [makeTrial({ trial: 1, outcome: "pass" })] }),
    ]);
    const lines = renderTerminalSummary(report).split("\n");
    const at = lines.findIndex((line) => line.includes("ledger "));
    expect(lines[at + 1]).toBe(
      "        target.command_pattern missed calls in 2 trial(s), e.g. `ledger-tool --help␛[31m` (counted all the same; report.md lists them)",
    );
    expect(lines.filter((line) => line.includes("command_pattern"))).toHaveLength(1);
  });

  it("cuts a long example by code points", () => {
    const command = `tool ${"😀".repeat(70)}`;
    const report = makeReport([
      makeScenarioReport({
        id: "emoji",
        trials: [makeTrial({ trial: 1, outcome: "pass", command_pattern_misses: [command] })],
      }),
    ]);
    const line = renderTerminalSummary(report)
      .split("\n")
      .find((each) => each.includes("command_pattern")) as string;
    expect(line).toContain(`e.g. \`tool ${"😀".repeat(55)}…\``);
    // No lone surrogate left by the cut.
    expect(line).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/);
  });
});

describe("renderTerminalSummary: options whose value may be the subcommand", () => {
  it("names each option once under its scenario", () => {
    const hint = (option: string) => ({ option, command: `hledger ${option} main.journal balance` });
    const report = makeReport([
      makeScenarioReport({
        id: "ledger",
        trials: [
          makeTrial({ trial: 1, outcome: "pass", possible_global_options: [hint("-f"), hint("--file")] }),
          makeTrial({ trial: 2, outcome: "pass", possible_global_options: [hint("-f")] }),
        ],
      }),
    ]);
    const lines = renderTerminalSummary(report).split("\n");
    expect(lines.filter((line) => line.includes("global_options"))).toEqual([
      "        subcommands taken from the argument after `-f`, `--file`: if it takes a value, list it in target.global_options",
    ]);
  });
});
