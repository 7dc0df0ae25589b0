import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { EXIT } from "../../src/cli/main.js";
import { makeTempDir } from "../support/temp-dirs.js";
import { runMain, SUITE } from "./run-main.js";

describe("list", () => {
  it("prints the scenarios, also as JSON, filtered by tags and tier", async () => {
    const text = await runMain(["list", SUITE]);
    expect(text.code).toBe(EXIT.ok);
    expect(text.stdout).toMatch(/^count_adults {2}\[json\] {2}tier 1 · 2 gate\(s\)/m);
    expect(text.stdout).toContain("2 scenario(s)");
    const json = await runMain(["list", SUITE, "--json", "--tags", "smoke"]);
    expect(JSON.parse(json.stdout).map((s: { id: string }) => s.id)).toEqual(["extract_names"]);
    const none = await runMain(["list", SUITE, "--tier", "0"]);
    expect(none.stdout).toBe("0 scenario(s)\n");
  });

  it("says a load warning on its own stderr (a bashkit check of an unknown type)", async () => {
    const dir = makeTempDir("ltt-load-warning-");
    const task = { id: "odd", category: "c", description: "d", prompt: "p", files: {} };
    await writeFile(
      path.join(dir, "d.jsonl"),
      `${JSON.stringify({ ...task, expectations: [{ check: "stdout_matches:x" }] })}\n`,
    );
    const result = await runMain(["list", "d.jsonl"], { cwd: dir });
    expect(result.code).toBe(EXIT.ok);
    expect(result.stderr).toMatch(
      /^warning: d\.jsonl:1: expectations\[0\]\.check: unknown check type `stdout_matches`/m,
    );
  });

  it("takes quoted globs and !exclusions as the action's scenarios input does", async () => {
    const dir = makeTempDir("ltt-globs-");
    await mkdir(path.join(dir, "scenarios/slow"), { recursive: true });
    for (const [file, name] of [
      ["scenarios/quick.yaml", "quick"],
      ["scenarios/slow/long.yaml", "long"],
    ]) {
      await writeFile(path.join(dir, file as string), `name: ${name}\ntask: t\n`);
    }
    const ids = async (args: string[]) => {
      const result = await runMain(["list", ...args, "--json"], { cwd: dir });
      return JSON.parse(result.stdout).map((s: { id: string }) => s.id);
    };
    expect(await ids([])).toEqual(["long", "quick"]);
    expect(await ids(["scenarios/**/*.yaml", "!scenarios/slow/**"])).toEqual(["quick"]);
    expect(await ids(["!scenarios/slow"])).toEqual(["quick"]);
    const none = await runMain(["list", "scenarios/*.yml"], { cwd: dir });
    expect(none.code).toBe(EXIT.usage);
    expect(none.stderr).toContain(
      `the scenario paths: the pattern "scenarios/*.yml" matches no file under ${dir}`,
    );
  });

  it("says how many scenario@variant entries a run of them counts", async () => {
    const dir = makeTempDir("ltt-variants-");
    await writeFile(path.join(dir, "a.md"), "a\n");
    await writeFile(path.join(dir, "b.md"), "b\n");
    await writeFile(
      path.join(dir, "v.yaml"),
      "task: t\nvariants:\n  - {name: a, guidance: a.md}\n  - {name: b, guidance: b.md}\n",
    );
    await writeFile(path.join(dir, "plain.yaml"), "task: t\n");
    const listed = await runMain(["list", dir]);
    expect(listed.stdout).toContain("2 scenario(s) (3 scenario@variant entries in a run)\n");
    const validated = await runMain(["validate", dir]);
    expect(validated.stdout).toBe("2 scenario(s) (3 scenario@variant entries in a run) valid.\n");
  });
});

describe("validate", () => {
  it("counts the valid scenarios", async () => {
    expect(await runMain(["validate", SUITE])).toEqual({
      code: EXIT.ok,
      stdout: "2 scenario(s) valid.\n",
      stderr: "",
    });
  });

  it("names the file, the line and the field of a typo, with a suggestion", async () => {
    const dir = makeTempDir("ltt-typo-");
    await writeFile(path.join(dir, "typo.yaml"), "name: typo\ntask: do it\nevaluation:\n  gatse: []\n");
    const result = await runMain(["validate", dir]);
    expect(result.code).toBe(EXIT.usage);
    expect(result.stderr).toMatch(/typo\.yaml:4: evaluation\.gatse: .*did you mean `?"?gates/);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it("with --oracle, proves each scenario can pass and can fail", async () => {
    const result = await runMain(["validate", path.join(SUITE, "extract-names.yaml"), "--oracle"]);
    expect(result.stdout).toContain("ok   extract_names:");
    expect(result.stdout).toContain("All checked scenarios are satisfiable and not vacuous (1 checked).");
    expect(result.code).toBe(EXIT.ok);
  });

  it("with --oracle, does not call skipped scenarios satisfiable", async () => {
    const dir = makeTempDir("ltt-no-solution-");
    await writeFile(
      path.join(dir, "bare.yaml"),
      "name: bare\ntask: do it\nevaluation:\n  gates: [{type: file_exists, path: out.txt}]\n",
    );
    const result = await runMain(["validate", dir, "--oracle"]);
    expect(result.stdout).toContain("skip bare: no solution");
    expect(result.stdout).not.toContain("satisfiable");
    expect(result.stdout).toContain("No scenario was checked: 1 skipped: no solution to run.");
    expect(result.code).toBe(EXIT.ok);
  });

  it("warns about a scenario without gates, and --oracle fails it (any agent would pass it)", async () => {
    const dir = makeTempDir("ltt-no-gates-");
    await writeFile(path.join(dir, "open.yaml"), "name: open\ntask: do it\nsolution: ['true']\n");
    await writeFile(
      path.join(dir, "gated.yaml"),
      "name: gated\ntask: do it\nevaluation:\n  gates: [{type: file_exists, path: out.txt}]\n",
    );
    const validated = await runMain(["validate", "."], { cwd: dir });
    expect(validated.code).toBe(EXIT.ok);
    expect(validated.stderr).toBe(
      "warning: open.yaml: scenario open has no gates: nothing checks the agent's work, so an agent that does nothing passes; add `evaluation.gates`\n",
    );
    const oracle = await runMain(["validate", dir, "--oracle"]);
    expect(oracle.stdout).toContain("FAIL open: no gates: nothing checks the agent's work");
    expect(oracle.stdout).toContain("skip gated: no solution");
    expect(oracle.stdout).toContain("1 problem(s).");
    expect(oracle.code).toBe(EXIT.failed);
  });

  it("warns when target.command_pattern takes an option for the subcommand, naming the file and the field", async () => {
    const dir = makeTempDir("ltt-option-capture-");
    const scenario = (name: string, pattern: string, solution: string) =>
      `name: ${name}\ntask: convert\ntarget: {binary: mlr, command_pattern: '${pattern}'}\nsolution: ['${solution}']\nevaluation:\n  gates: [{type: file_exists, path: out.json}]\n`;
    // The solution puts `--icsv` before the subcommand: `mlr\s+(\S+)` names it `--icsv`.
    await writeFile(
      path.join(dir, "naive.yaml"),
      scenario("naive", "mlr\\s+(\\S+)", "mlr --icsv --ojson cat x.csv"),
    );
    // The solution does not, but an agent may: the pattern still can.
    await writeFile(path.join(dir, "probe.yaml"), scenario("probe", "mlr (\\S+)", "mlr cat x.csv"));
    await writeFile(
      path.join(dir, "sound.yaml"),
      scenario("sound", "mlr\\s+(?:-\\S+\\s+)*([a-z][\\w-]*)", "mlr --icsv --ojson cat x.csv"),
    );
    const validated = await runMain(["validate", "."], { cwd: dir });
    expect(validated.code).toBe(EXIT.ok);
    const fix =
      'agents often put options before the subcommand, so their calls would be counted under an option\'s name. Make group 1 skip options (e.g. "my-tool\\s+(?:-\\S+\\s+)*([a-z][\\w-]*)"), or drop the group: the subcommand is then the first argument that is not an option';
    expect(validated.stderr.split("\n").sort()).toEqual([
      "",
      `warning: naive.yaml: scenario naive: target.command_pattern: group 1 captures the option "--icsv" as the subcommand in the solution's call "mlr --icsv"; ${fix}`,
      `warning: probe.yaml: scenario probe: target.command_pattern: group 1 captures the option "--option" as the subcommand in a call such as "mlr --option subcommand"; ${fix}`,
    ]);
  });
});
