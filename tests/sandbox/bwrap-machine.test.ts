/**
 * A scenario's machine profile in the bwrap sandbox (bashkit datasets set it): the hostname, and
 * system folders writable copy-on-write, the changes kept in the trial's root and gone with it.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { buildBwrapArgs, type HostSystem, wrapWithOverlays } from "../../src/sandbox/bwrap.js";
import { createTrialSandbox } from "../../src/sandbox/trial-sandbox.js";
import type { TrialSandbox } from "../../src/sandbox/types.js";
import type { MachineProfile } from "../../src/scenario/types.js";
import { createEventRecorder } from "../support/event-builder.js";
import { findBwrapProblem } from "../support/processes.js";
import { makeScenario } from "../support/scenario-factory.js";

const bwrapProblem = findBwrapProblem();
const dir = mkdtempSync(path.join(os.tmpdir(), "bwrap-machine-test-"));
const open: TrialSandbox[] = [];

async function createSandbox(machine?: MachineProfile) {
  const sandbox = await createTrialSandbox({
    scenario: makeScenario(machine ? { machine } : {}),
    mode: "bwrap",
    trialDir: path.join(dir, "out", `trial-${open.length + 1}`),
    parentEnv: { PATH: process.env.PATH ?? "/usr/bin:/bin", LANG: "C.UTF-8" },
    events: createEventRecorder(),
    tmpRoot: path.join(dir, "tmp-root"),
  });
  open.push(sandbox);
  return sandbox;
}

const run = (sandbox: TrialSandbox, command: string) =>
  sandbox.runAgentCommand(command, { timeoutMs: 20_000 });

afterEach(async () => {
  for (const sandbox of open.splice(0)) await sandbox.dispose();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe.skipIf(bwrapProblem !== null)("a scenario's machine profile in bwrap", () => {
  it("names the host as the scenario says, `sandbox` by default", async () => {
    const named = await createSandbox({ hostname: "bashkit-eval" });
    expect((await run(named, "hostname; cat /etc/hostname")).stdout).toBe("bashkit-eval\nbashkit-eval\n");
    const plain = await createSandbox();
    expect((await run(plain, "hostname")).stdout).toBe("sandbox\n");
  });

  it("makes system folders writable copy-on-write: the root keeps the changes, the host never sees them", async () => {
    const sandbox = await createSandbox({ hostname: "bashkit-eval", writableSystemDirs: true });
    const name = `llm-tool-test-cow-${process.pid}-${Date.now()}`;
    const write = await run(
      sandbox,
      `echo 'hi() { echo hello; }' > /lib/${name}.sh && mkdir -p /usr/local/share/${name} && echo x > /usr/local/share/${name}/f && . /lib/${name}.sh && hi && ls /usr/bin/bash`,
    );
    expect(write.stderr).toBe("");
    expect(write.stdout).toBe("hello\n/usr/bin/bash\n");
    // Later commands and file gates see the changes; the host's folders do not have them.
    expect((await run(sandbox, `cat /usr/lib/${name}.sh`)).stdout).toBe("hi() { echo hello; }\n");
    expect(readFileSync(sandbox.resolvePath(`/lib/${name}.sh`), "utf8")).toBe("hi() { echo hello; }\n");
    expect(existsSync(`/usr/lib/${name}.sh`)).toBe(false);
    expect(existsSync(`/usr/local/share/${name}`)).toBe(false);
    // Changing a file the host has changes only the sandbox's copy.
    const hostFile = ["/usr/lib/os-release", "/usr/share/common-licenses/GPL-3"].find((file) =>
      existsSync(file),
    );
    if (hostFile) {
      const before = readFileSync(hostFile, "utf8");
      const edit = await run(sandbox, `echo changed-in-sandbox >> ${hostFile} && tail -n 1 ${hostFile}`);
      expect(edit.stdout).toBe("changed-in-sandbox\n");
      expect(readFileSync(hostFile, "utf8")).toBe(before);
    }
  });

  it("keeps system folders read-only without the profile", async () => {
    const sandbox = await createSandbox({ hostname: "bashkit-eval" });
    const write = await run(sandbox, "echo x > /lib/llm-tool-test-ro.sh");
    expect(write.exit_code).not.toBe(0);
    expect(write.stderr).toMatch(/Read-only file system/);
  });
});

describe("overlay arguments", () => {
  const host: HostSystem = { systemDirs: ["/usr"], systemLinks: [], etcEntries: [], bash: "/bin/bash" };
  const overlay = {
    dir: "/usr",
    upper: "/t/root/usr",
    work: "/t/overlay/work/usr",
    merged: "/t/overlay/merged/usr",
  };

  it("binds the overlay's mount point writable where the system folder was bound read-only", () => {
    const args = buildBwrapArgs({
      root: "/t/root",
      hostname: "bashkit-eval",
      overlays: [overlay],
      network: false,
      mapsUser: true,
      host,
      readOnlyPaths: [],
    });
    expect(args.join(" ")).toContain("--hostname bashkit-eval");
    expect(args.join(" ")).toContain("--bind /t/overlay/merged/usr /usr");
    expect(args).not.toContain("--ro-bind");
  });

  it("mounts each overlay in a namespace of its own, then execs bwrap with its arguments unchanged", () => {
    const command = wrapWithOverlays(
      { unshare: "/usr/bin/unshare", sh: "/bin/sh", mount: "/bin/mount" },
      [overlay],
      "/usr/bin/bwrap",
      ["--unshare-all", "--", "/bin/bash", "-c", "echo 'a b'"],
    );
    expect(command.file).toBe("/usr/bin/unshare");
    expect(command.args.slice(0, 6)).toEqual(["--user", "--map-root-user", "--mount", "--", "/bin/sh", "-c"]);
    expect(command.args.slice(7)).toEqual([
      "mount-overlays",
      "/bin/mount",
      "/usr",
      "/t/root/usr",
      "/t/overlay/work/usr",
      "/t/overlay/merged/usr",
      "--",
      "/usr/bin/bwrap",
      "--unshare-all",
      "--",
      "/bin/bash",
      "-c",
      "echo 'a b'",
    ]);
  });
});
