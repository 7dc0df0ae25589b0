import { spawn } from "node:child_process";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";

const MODULE = path.resolve(import.meta.dirname, "../../src/sandbox/withdraw-environment.ts");
const CANARY = "cAnArY-wd-7f3e9b1c5a";

/**
 * A child Node process withdraws its environment, reports what it sees, then waits (stdin open) so
 * that this test can read its /proc/<pid>/environ from outside, as an agent would.
 */
const CHILD = `
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { withdrawEnvironment } from ${JSON.stringify(MODULE)};
const withdrawn = withdrawEnvironment({ keep: ["KEEP_ME"] });
const again = withdrawEnvironment();
console.log(JSON.stringify({
  warning: withdrawn.warning,
  sameResult: again === withdrawn,
  saved: withdrawn.env.SECRET_TOKEN,
  processEnv: Object.keys(process.env).sort(),
  ownEnviron: readFileSync("/proc/self/environ").toString("latin1"),
  inherited: spawnSync("env", [], { encoding: "utf8" }).stdout,
}));
process.stdin.resume();
process.stdin.on("end", () => process.exit(0));
`;

interface ChildView {
  warning: string | null;
  sameResult: boolean;
  saved: string;
  processEnv: string[];
  ownEnviron: string;
  inherited: string;
}

async function withdrawInChild(): Promise<{ view: ChildView; fromOutside: string }> {
  const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", CHILD], {
    env: {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: "/tmp",
      LANG: "C.UTF-8",
      KEEP_ME: "kept",
      SECRET_TOKEN: CANARY,
      DATABASE_URL: `postgres://u:${CANARY}@h/db`,
      FOO_SETTING: CANARY,
    },
    stdio: ["pipe", "pipe", "inherit"],
  });
  const line = await new Promise<string>((resolve, reject) => {
    let out = "";
    child.stdout.on("data", (chunk) => {
      out += chunk;
      if (out.includes("\n")) resolve(out.slice(0, out.indexOf("\n")));
    });
    child.on("error", reject);
    child.on("exit", (code) => reject(new Error(`child exited ${code}: ${out}`)));
  });
  const fromOutside = (await readFile(`/proc/${child.pid}/environ`)).toString("latin1");
  child.stdin.end();
  return { view: JSON.parse(line) as ChildView, fromOutside };
}

describe.runIf(process.platform === "linux")("withdrawEnvironment", () => {
  it("zeroes the environment block another process reads, and keeps the values in memory", async () => {
    const { view, fromOutside } = await withdrawInChild();
    // Scrubbed: no warning.
    expect(view.warning).toBeNull();
    expect(view.saved).toBe(CANARY);
    expect(view.sameResult).toBe(true);
    // Still as long as it was (the kernel's bounds do not move), but nothing but NULs.
    expect(fromOutside.length).toBeGreaterThan(0);
    expect(fromOutside.replaceAll("\0", "")).toBe("");
    expect(view.ownEnviron.replaceAll("\0", "")).toBe("");
  });

  it("leaves process.env only the minimal names (and those kept), so a child inherits no secret", async () => {
    const { view } = await withdrawInChild();
    expect(view.processEnv).toEqual(["HOME", "KEEP_ME", "LANG", "PATH"]);
    expect(view.inherited).not.toContain(CANARY);
    expect(view.inherited).toContain("KEEP_ME=kept");
  });
});
