/**
 * A gate type cannot be added without its evaluator: a copy of src/ whose GateSpec gains a
 * `fake_gate` member, and nothing else, must fail `tsc` in src/evaluate/gates.ts, while the
 * unpatched copy compiles. Only the gate modules and what they import are compiled, so this stays
 * a few seconds.
 */
import { execFile } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const REPO = path.resolve(import.meta.dirname, "../..");
const TSC = path.join(REPO, "node_modules", "typescript", "bin", "tsc");
const LAST_GATE = '| { type: "llm_judge"; prompt: string }';

let base: string;

beforeAll(() => {
  base = mkdtempSync(path.join(os.tmpdir(), "llm-tool-test-gates-"));
});

afterAll(() => {
  rmSync(base, { recursive: true, force: true });
});

/** A copy of src/ (patched by `patch`) with a tsconfig that compiles only the gate modules. */
function copyProject(name: string, patch?: (typesSource: string) => string): string {
  const dir = path.join(base, name);
  cpSync(path.join(REPO, "src"), path.join(dir, "src"), { recursive: true });
  symlinkSync(path.join(REPO, "node_modules"), path.join(dir, "node_modules"), "dir");
  writeFileSync(path.join(dir, "package.json"), JSON.stringify({ type: "module" }));
  writeFileSync(
    path.join(dir, "tsconfig.json"),
    JSON.stringify({
      extends: path.join(REPO, "tsconfig.json"),
      compilerOptions: { noEmit: true, incremental: false },
      include: [],
      files: ["src/evaluate/gates.ts", "src/scenario/gates.ts"],
    }),
  );
  if (patch) {
    const typesFile = path.join(dir, "src", "scenario", "types.ts");
    writeFileSync(typesFile, patch(readFileSync(typesFile, "utf8")));
  }
  return dir;
}

function runTsc(dir: string): Promise<{ exitCode: number; output: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [TSC, "-p", path.join(dir, "tsconfig.json")],
      { cwd: dir },
      (error, stdout, stderr) => {
        const exitCode = error ? (typeof error.code === "number" ? error.code : 1) : 0;
        resolve({ exitCode, output: `${stdout}${stderr}` });
      },
    );
  });
}

describe("gate exhaustiveness", () => {
  it("tsc fails in the evaluator registry when a gate type has no evaluator, and passes without it", async () => {
    const unpatched = copyProject("unpatched");
    const patched = copyProject("patched", (source) => {
      expect(source, "GateSpec's last member moved: update this test's anchor").toContain(LAST_GATE);
      return source.replace(LAST_GATE, `${LAST_GATE}\n    | { type: "fake_gate"; path: string }`);
    });

    const [clean, broken] = await Promise.all([runTsc(unpatched), runTsc(patched)]);

    expect(clean.output).toBe("");
    expect(clean.exitCode).toBe(0);
    expect(broken.exitCode).not.toBe(0);
    expect(broken.output).toMatch(/^src\/evaluate\/gates\.ts\(\d+,\d+\): error TS\d+: .*fake_gate/m);
  }, 120_000);
});
