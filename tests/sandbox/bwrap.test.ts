import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { createServer, type Server } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { ConfigError } from "../../src/errors.js";
import { buildBwrapArgs, type HostSystem } from "../../src/sandbox/bwrap.js";
import { createTrialSandbox, type TrialSandboxOptions } from "../../src/sandbox/trial-sandbox.js";
import type { TrialSandbox } from "../../src/sandbox/types.js";
import { createEventRecorder } from "../support/event-builder.js";
import { findBwrapProblem, findLiveProcesses, waitForNoProcess } from "../support/processes.js";
import { makeScenario } from "../support/scenario-factory.js";
import { FAKE_TOOL } from "./fake-tool.js";

const bwrapProblem = findBwrapProblem();
if (bwrapProblem) console.warn(`skipping bwrap sandbox tests: ${bwrapProblem}`);

const dir = mkdtempSync(path.join(os.tmpdir(), "bwrap-test-"));
const toolDir = path.join(dir, "tools");
const tmpRoot = path.join(dir, "tmp-root");
mkdirSync(toolDir, { recursive: true });
writeFileSync(path.join(toolDir, "fake-tool"), FAKE_TOOL, { mode: 0o755 });
// Handles TERM and leaves no child holding its output (fake-tool's wait-signal leaves a sleep 30).
writeFileSync(
  path.join(toolDir, "signal-tool"),
  "#!/bin/sh\ntrap 'echo got-term; exit 42' TERM\necho ready\nwhile :; do sleep 0.1; done\n",
  { mode: 0o755 },
);
const CANARY = "sk-ant-BWRAP-CANARY-77e1";
const parentEnv = {
  PATH: `${toolDir}:${process.env.PATH ?? "/usr/bin:/bin"}`,
  LANG: "C.UTF-8",
  ANTHROPIC_API_KEY: CANARY,
};
const open: TrialSandbox[] = [];
let counter = 0;

async function createSandbox(options: Partial<TrialSandboxOptions> = {}) {
  counter += 1;
  const trialDir = path.join(dir, "out", `trial-${counter}`);
  const sandbox = await createTrialSandbox({
    scenario: makeScenario(),
    mode: "bwrap",
    trialDir,
    parentEnv,
    events: createEventRecorder(),
    tmpRoot,
    ...options,
  });
  open.push(sandbox);
  return sandbox;
}

const run = (sandbox: TrialSandbox, command: string, timeoutMs = 20_000) =>
  sandbox.runAgentCommand(command, { timeoutMs });

afterEach(async () => {
  for (const sandbox of open.splice(0)) await sandbox.dispose();
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(bwrapProblem !== null)("createTrialSandbox (bwrap)", () => {
  let server: Server;
  let port = 0;
  beforeAll(async () => {
    server = createServer((socket) => socket.end("hello from the host\n"));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.address() as { port: number }).port;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  it("runs in /home/eval as user eval, with a fresh /tmp inside the root", async () => {
    const sandbox = await createSandbox();
    expect(sandbox.mode).toBe("bwrap");
    expect(sandbox.visibleWorkDir).toBe("/home/eval");
    expect(sandbox.workDir).toBe(path.join(sandbox.root, "home", "eval"));
    const result = await run(
      sandbox,
      'pwd; echo "$HOME"; whoami; echo "$TMPDIR"; echo tmpfile > /tmp/t.txt; ls /',
    );
    expect(result.exit_code).toBe(0);
    const [pwd, home, user, tmpdir] = result.stdout.split("\n");
    expect([pwd, home, user, tmpdir]).toEqual(["/home/eval", "/home/eval", "eval", "/tmp"]);
    expect(readFileSync(path.join(sandbox.root, "tmp", "t.txt"), "utf8")).toBe("tmpfile\n");
    // The host's own directories (this test's folder, the repo) are not there.
    expect(result.stdout).not.toMatch(/^work$/m);
  });

  it("runs command after command in one sandbox, even after the agent removes /bin", async () => {
    const sandbox = await createSandbox();
    expect((await run(sandbox, "echo one > one.txt")).exit_code).toBe(0);
    await run(sandbox, "rm -f /bin 2>/dev/null; true");
    // The agent's own shell goes on without /bin, as any machine would; a fresh shell has it back.
    const same = await run(sandbox, "cat one.txt; ls /bin/bash");
    expect(same.stdout).toBe("one\n");
    // With a function in the shell's state, a call is a bash of its own (started through env(1)):
    // both were held by the shell's runner before /bin went.
    await run(sandbox, "two() { cat one.txt; }");
    expect(await run(sandbox, "two; ls /bin/bash")).toMatchObject({ stdout: "one\n", exit_code: 2 });
    await sandbox.restartAgentShell();
    const again = await run(sandbox, "cat one.txt; ls /bin/bash");
    expect(again.stderr).toBe("");
    expect(again.stdout).toBe("one\n/bin/bash\n");
    const alone = await sandbox.runAgentCommandAlone("rm -f /bin; true", { timeoutMs: 20_000 });
    expect(alone.exit_code).toBe(0);
    expect((await sandbox.runAgentCommandAlone("ls /bin/bash", { timeoutMs: 20_000 })).stdout).toBe(
      "/bin/bash\n",
    );
  });

  it("refuses writes outside the work dir: the host's /usr and host paths not in the root", async () => {
    const sandbox = await createSandbox();
    const hostFile = path.join(dir, "written-from-sandbox.txt");
    const usr = await run(sandbox, "echo x > /usr/llm-tool-test-escape");
    expect(usr.exit_code).not.toBe(0);
    expect(usr.stderr).toMatch(/Read-only file system/);
    expect(existsSync("/usr/llm-tool-test-escape")).toBe(false);
    const outside = await run(sandbox, `echo x > ${hostFile}`);
    expect(outside.exit_code).not.toBe(0);
    expect(existsSync(hostFile)).toBe(false);
    const etc = await run(sandbox, "echo x >> /etc/hosts");
    expect(etc.exit_code).not.toBe(0);
  });

  it("writes absolute-path files at their paths inside the root, and file gates find them", async () => {
    const sandbox = await createSandbox({
      scenario: makeScenario({
        files: {
          "/var/log/test.log": "INFO: ok\nERROR: failed\nerror: bad\n",
          "/data/in.json": '{"n": 3}',
          "rel.txt": "relative",
        },
      }),
    });
    const result = await run(
      sandbox,
      "grep -ci error /var/log/test.log; jq .n /data/in.json; cat rel.txt; mkdir -p /output && echo done > /output/result.txt",
    );
    expect(result.stdout).toBe("2\n3\nrelative");
    expect(readFileSync(sandbox.resolvePath("/output/result.txt"), "utf8")).toBe("done\n");
    expect(sandbox.resolvePath("/var/log/test.log")).toBe(path.join(sandbox.root, "var", "log", "test.log"));
    expect(sandbox.resolvePath("rel.txt")).toBe(path.join(sandbox.root, "home", "eval", "rel.txt"));
    expect(() => sandbox.resolvePath("/../outside")).toThrow(ConfigError);
  });

  it("has bash, coreutils, jq and python3", async () => {
    const sandbox = await createSandbox();
    const result = await run(
      sandbox,
      "echo '[1,2]' | jq length; python3 -c 'print(6*7)'; printf 'b\\na\\n' | sort | head -1; awk 'BEGIN{print \"awk\"}'",
    );
    expect(result.stderr).toBe("");
    expect(result.stdout).toBe("2\n42\na\nawk\n");
  });

  it("has no network unless the scenario allows it", async () => {
    const probe = `exec 3<>/dev/tcp/127.0.0.1/${port} && head -1 <&3`;
    const offline = await createSandbox();
    const blocked = await run(offline, probe);
    expect(blocked.exit_code).not.toBe(0);
    expect(blocked.stdout).not.toContain("hello from the host");
    const online = await createSandbox({ scenario: makeScenario({ network: true }) });
    const allowed = await run(online, probe);
    expect(allowed.stdout).toBe("hello from the host\n");
  });

  it("records target invocations through the shim inside, but not gates", async () => {
    const sandbox = await createSandbox({
      scenario: makeScenario({ target: { binary: "fake-tool", env: {} } }),
    });
    const result = await run(
      sandbox,
      "mkdir -p sub && cd sub && fake-tool echo 'in sandbox' && printf 'q\\n' | fake-tool upper; fake-tool fail 5",
    );
    expect(result.stdout).toBe("in sandbox\nQ\n");
    expect(result.exit_code).toBe(5);
    const gate = await sandbox.runGateCommand("fake-tool echo gate", { timeoutMs: 20_000 });
    expect(gate.stdout).toBe("gate\n");
    const invocations = await sandbox.readTargetInvocations();
    expect(invocations.map((record) => [record.argv, record.exit_code, record.cwd])).toEqual([
      [["fake-tool", "echo", "in sandbox"], 0, "/home/eval/sub"],
      [["fake-tool", "upper"], 0, "/home/eval/sub"],
      [["fake-tool", "fail", "5"], 5, "/home/eval/sub"],
    ]);
  });

  it("forwards a signal to a brokered target, which handles it; its status, stdout and cwd exact", async () => {
    const sandbox = await createSandbox({
      scenario: makeScenario({ target: { binary: "signal-tool", env: {} } }),
    });
    const result = await run(
      sandbox,
      [
        "mkdir -p sub && cd sub",
        "signal-tool > got.txt & pid=$!",
        // Signalled only once the target runs (it says so), however slow the machine.
        "until grep -q ready got.txt 2>/dev/null; do sleep 0.05; done",
        'kill -TERM "$pid"; wait "$pid"; echo "status $?"; cat got.txt',
      ].join("\n"),
      60_000,
    );
    expect(result.stdout).toBe("status 42\nready\ngot-term\n");
    const invocations = await sandbox.readTargetInvocations();
    expect(invocations.map((record) => [record.argv, record.exit_code, record.cwd])).toEqual([
      [["signal-tool"], 42, "/home/eval/sub"],
    ]);
  });

  it("ends the broker's sandbox, and a target still running in it, with the trial", async () => {
    const sandbox = await createSandbox({
      scenario: makeScenario({ target: { binary: "fake-tool", env: {} } }),
    });
    const started = await run(sandbox, "(fake-tool nap 100.0717 &) ; echo started");
    expect(started.stdout).toBe("started\n");
    // The target runs in the broker's sandbox, not the agent's shell: there until the trial ends.
    for (let tries = 0; tries < 200 && findLiveProcesses("sleep 100.0717").length === 0; tries++)
      await new Promise((resolve) => setTimeout(resolve, 50));
    expect(findLiveProcesses("sleep 100.0717")).not.toEqual([]);
    await sandbox.endAgentProcesses();
    await sandbox.dispose();
    expect(await waitForNoProcess("sleep 100.0717")).toEqual([]);
    expect(await waitForNoProcess("llm-tool-test-broker")).toEqual([]);
  });

  it("makes an npm-installed target (a .bin symlink into node_modules) usable inside", async () => {
    const project = path.join(dir, "project");
    const pkg = path.join(project, "node_modules", "npm-tool");
    mkdirSync(path.join(pkg, "bin"), { recursive: true });
    mkdirSync(path.join(project, "node_modules", "dep"), { recursive: true });
    mkdirSync(path.join(project, "node_modules", ".bin"), { recursive: true });
    writeFileSync(
      path.join(project, "node_modules", "dep", "index.js"),
      "module.exports = (s) => s.toUpperCase();\n",
    );
    writeFileSync(
      path.join(pkg, "bin", "cli.js"),
      "#!/usr/bin/env node\nconst up = require('../../dep');\nconsole.log(up(process.argv.slice(2).join(' ')));\n",
      { mode: 0o755 },
    );
    symlinkSync("../npm-tool/bin/cli.js", path.join(project, "node_modules", ".bin", "npm-tool"));
    const nodeDir = path.dirname(process.execPath);
    const sandbox = await createSandbox({
      scenario: makeScenario({ target: { binary: "npm-tool", env: {} } }),
      parentEnv: {
        ...parentEnv,
        PATH: `${path.join(project, "node_modules", ".bin")}:${nodeDir}:${parentEnv.PATH}`,
      },
      readOnlyPaths: nodeDir.startsWith("/usr/") ? [] : [nodeDir],
    });
    const result = await run(sandbox, `PATH="$PATH:${nodeDir}"; npm-tool hello sandbox`);
    expect(result.stderr).toBe("");
    expect(result.stdout).toBe("HELLO SANDBOX\n");
    const invocations = await sandbox.readTargetInvocations();
    expect(invocations.map((record) => [record.argv, record.exit_code])).toEqual([
      [["npm-tool", "hello", "sandbox"], 0],
    ]);
  });

  it("keeps secrets out of the sandbox's environment", async () => {
    const sandbox = await createSandbox();
    const result = await run(sandbox, "env; cat /proc/1/environ 2>/dev/null | tr '\\0' '\\n'");
    expect(result.stdout).toContain("HOME=/home/eval");
    expect(result.stdout).not.toContain(CANARY);
  });

  it("kills the tree on timeout; a background child lives with the shell and ends with the agent's turn", async () => {
    const sandbox = await createSandbox();
    const started = Date.now();
    const timedOut = await run(sandbox, "sleep 100.0707 & wait", 500);
    expect(timedOut.timed_out).toBe(true);
    expect(timedOut.exit_code).toBe(124);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(await waitForNoProcess("sleep 100.0707")).toEqual([]);
    const background = await run(sandbox, "sleep 100.0808 & echo started");
    expect(background.stdout).toBe("started\n");
    // The persistent shell keeps it (a server started in one call answers the next) ...
    expect((await run(sandbox, "pgrep -f 'sleep 100.0808' >/dev/null && echo alive")).stdout).toBe("alive\n");
    // ... until the agent is done: nothing it left runs while the gates judge.
    await sandbox.endAgentProcesses();
    expect(await waitForNoProcess("sleep 100.0808")).toEqual([]);
    // A command run alone (a sandbox of its own) takes its background children with it.
    await sandbox.runAgentCommandAlone("sleep 100.0909 & echo started", { timeoutMs: 20_000 });
    expect(await waitForNoProcess("sleep 100.0909")).toEqual([]);
  });

  it("runs setup inside the sandbox", async () => {
    const sandbox = await createSandbox({
      scenario: makeScenario({ setup: ["mkdir -p /data && pwd > /data/setup-cwd"] }),
    });
    expect(readFileSync(path.join(sandbox.root, "data", "setup-cwd"), "utf8")).toBe("/home/eval\n");
  });
});

describe("bwrap availability", () => {
  it("says how to fix a missing bwrap", async () => {
    const attempt = createTrialSandbox({
      scenario: makeScenario(),
      mode: "bwrap",
      trialDir: path.join(dir, "out", "missing"),
      parentEnv: { PATH: "/nonexistent", LLM_TOOL_TEST_BWRAP: "/nonexistent/bwrap" },
      events: createEventRecorder(),
      tmpRoot,
    });
    await expect(attempt).rejects.toBeInstanceOf(ConfigError);
    await expect(
      createTrialSandbox({
        scenario: makeScenario(),
        mode: "bwrap",
        trialDir: path.join(dir, "out", "missing"),
        parentEnv: { PATH: "/nonexistent", LLM_TOOL_TEST_BWRAP: "/nonexistent/bwrap" },
        events: createEventRecorder(),
        tmpRoot,
      }),
    ).rejects.toThrow(
      /needs bubblewrap at LLM_TOOL_TEST_BWRAP=\/nonexistent\/bwrap, but it is not there .*: install it \(sudo apt-get install -y bubblewrap\)/,
    );
  });

  it("says how to fix blocked user namespaces when bwrap fails", async () => {
    const fakeBwrap = path.join(dir, "fake-bwrap");
    writeFileSync(fakeBwrap, "#!/bin/sh\necho 'bwrap: setting up uid map: Permission denied' >&2\nexit 1\n", {
      mode: 0o755,
    });
    const attempt = createTrialSandbox({
      scenario: makeScenario(),
      mode: "bwrap",
      trialDir: path.join(dir, "out", "blocked"),
      parentEnv,
      events: createEventRecorder(),
      tmpRoot,
      bwrapPath: fakeBwrap,
    });
    await expect(attempt).rejects.toThrow(ConfigError);
    await expect(attempt).rejects.toThrow(
      /setting up uid map: Permission denied.*kernel\.apparmor_restrict_unprivileged_userns=0/,
    );
  });
});

describe("buildBwrapArgs", () => {
  const host: HostSystem = {
    systemDirs: ["/usr"],
    systemLinks: [{ path: "/bin", target: "usr/bin" }],
    etcEntries: ["/etc/hosts"],
    bash: "/bin/bash",
  };

  it("unshares the network unless allowed, maps the user, and binds the shim", () => {
    const args = buildBwrapArgs({
      root: "/tmp/r",
      network: false,
      mapsUser: true,
      host,
      readOnlyPaths: ["/opt/tool/bin"],
      shimDir: "/tmp/shim",
      logDir: "/out/log",
    });
    expect(args).toContain("--unshare-all");
    expect(args).not.toContain("--share-net");
    expect(args.join(" ")).toContain("--unshare-user --uid 1000 --gid 1000");
    expect(args.join(" ")).toContain("--die-with-parent --new-session --bind /tmp/r /");
    expect(args.join(" ")).toContain("--ro-bind /usr /usr");
    expect(args).not.toContain("--symlink");
    expect(args.join(" ")).toContain("--ro-bind /opt/tool/bin /opt/tool/bin");
    expect(args.join(" ")).toContain(
      "--ro-bind /tmp/shim /run/llm-tool-test/bin --ro-bind /out/log /run/llm-tool-test/log",
    );
    expect(args.slice(-2)).toEqual(["--chdir", "/home/eval"]);
    const online = buildBwrapArgs({
      root: "/tmp/r",
      network: true,
      mapsUser: false,
      host,
      readOnlyPaths: [],
    });
    expect(online).toContain("--share-net");
    expect(online).not.toContain("--uid");
  });

  it("binds moved paths last, so the shim covers the target's own path", () => {
    const args = buildBwrapArgs({
      root: "/tmp/r",
      network: false,
      mapsUser: true,
      host,
      readOnlyPaths: ["/opt/tool/bin"],
      shimDir: "/tmp/shim",
      logDir: "/out/log",
      movedBinds: [
        { from: "/opt/tool/bin", to: "/run/llm-tool-test/real/opt/tool/bin" },
        { from: "/tmp/shim/tool", to: "/opt/tool/bin/tool" },
      ],
    });
    expect(args.slice(-8)).toEqual([
      "--ro-bind",
      "/opt/tool/bin",
      "/run/llm-tool-test/real/opt/tool/bin",
      "--ro-bind",
      "/tmp/shim/tool",
      "/opt/tool/bin/tool",
      "--chdir",
      "/home/eval",
    ]);
  });
});
