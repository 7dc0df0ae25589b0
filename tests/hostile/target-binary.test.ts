/**
 * `target.binary` naming a host executable outside the repository (issue #25, break 9): the bwrap
 * sandbox binds the binary's folder read-only so the tool can reach what lies beside it, so a
 * scenario from a pull request naming `/root/x` had `/root` shown to the agent. A binary path must
 * now be inside the repository that holds the scenario (its folder outside git) or a system folder
 * (/usr, /bin, /sbin), symbolic links resolved, like a scenario's other files; a bare name is
 * looked up on the runner's PATH as before.
 */
import { chmod, mkdir, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { EXIT } from "../../src/cli/main.js";
import { runMain } from "../cli/run-main.js";
import { makeTempDir } from "../support/temp-dirs.js";

const CANARY = "Zq7-canary-target-binary-81c2";
let root: string;
let repo: string;
let outsideTool: string;

beforeAll(async () => {
  root = await makeTempDir("ltt-hostile-target-");
  repo = path.join(root, "repo");
  await mkdir(path.join(repo, ".git"), { recursive: true });
  await mkdir(path.join(repo, "bin"));
  await writeFile(path.join(repo, "bin", "tool"), "#!/bin/sh\necho tool\n");
  await chmod(path.join(repo, "bin", "tool"), 0o755);
  // A folder of the host with a secret beside an executable (as /root beside /root/x).
  const secrets = path.join(root, "home-of-root");
  await mkdir(secrets);
  await writeFile(path.join(secrets, "credentials"), CANARY);
  outsideTool = path.join(secrets, "x");
  await writeFile(outsideTool, "#!/bin/sh\necho x\n");
  await chmod(outsideTool, 0o755);
  await symlink(outsideTool, path.join(repo, "bin", "linked"));
});

async function validate(name: string, binary: string) {
  const dir = path.join(repo, "scenarios", name);
  await mkdir(dir, { recursive: true });
  await writeFile(
    path.join(dir, "s.yaml"),
    `task: run the tool\ntarget:\n  binary: ${JSON.stringify(binary)}\nevaluation:\n  gates:\n    - type: command_succeeds\n      command: "true"\n`,
  );
  return runMain(["validate", dir]);
}

describe("target.binary outside the repository and the system folders", () => {
  it("an absolute path to a host executable is refused, naming the field and the rule", async () => {
    const result = await validate("absolute", outsideTool);
    expect(result.code, result.stdout + result.stderr).toBe(EXIT.usage);
    expect(result.stderr).toMatch(
      /s\.yaml:3: target\.binary: ".*home-of-root\/x" is outside the repository that holds the scenario/,
    );
    expect(result.stderr).toContain("name a program on PATH, or a path inside the repository");
    expect(result.stderr).not.toContain(CANARY);
  });

  it("a relative path climbing out of the repository is refused", async () => {
    const result = await validate("climbing", "../../../home-of-root/x");
    expect(result.code).toBe(EXIT.usage);
    expect(result.stderr).toContain("is outside the repository that holds the scenario");
  });

  it("a link inside the repository to a host executable is refused", async () => {
    const result = await validate("linked", "../../bin/linked");
    expect(result.code).toBe(EXIT.usage);
    expect(result.stderr).toContain("leads outside the repository that holds the scenario");
  });

  it("a binary inside the repository, a system program and a name on PATH still load", async () => {
    for (const [name, binary] of [
      ["inside", "../../bin/tool"],
      ["system", "/usr/bin/env"],
      ["name", "env"],
    ] as const) {
      const result = await validate(name, binary);
      expect(result.code, `${name}: ${result.stderr}`).toBe(EXIT.ok);
    }
  });
});
