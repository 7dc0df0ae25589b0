/**
 * The broker's call channel takes only requests of the requester's own shape: a folder named as
 * the requester names it under the sandbox's /tmp, and a forwarded signal of the three it forwards.
 */
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { runProcess, runShell } from "../../src/sandbox/exec.js";
import { readShimLog, resolveRealBinary, writeShim } from "../../src/sandbox/shim.js";
import {
  BROKER_SERVER_SCRIPT,
  CALLS_FIFO,
  openShimBroker,
  parseBrokerRequest,
  renderRequesterScript,
  STATUS_WRITER_SCRIPT,
} from "../../src/sandbox/shim-broker.js";
import { makeTempDir } from "../support/temp-dirs.js";

describe("parseBrokerRequest", () => {
  it("takes a call and a forwarded signal", () => {
    expect(parseBrokerRequest("c1\t/tmp/.ltt-call.AbC123xyz9")).toEqual({
      kind: "call",
      dir: "/tmp/.ltt-call.AbC123xyz9",
    });
    expect(parseBrokerRequest("k1\t/tmp/.ltt-call.AbC123xyz9\tTERM")).toEqual({
      kind: "signal",
      dir: "/tmp/.ltt-call.AbC123xyz9",
      signal: "TERM",
    });
  });

  it("refuses any other folder, signal or shape", () => {
    for (const line of [
      "c1\t/tmp/.ltt-call.../../etc",
      "c1\t/home/eval/.ltt-call.AbC123xyz9",
      "c1\t/tmp/.ltt-call.AbC123xyz9/x",
      "c1\t/tmp/.ltt-call.AbC123xyz9\textra",
      "k1\t/tmp/.ltt-call.AbC123xyz9\tKILL",
      "k1\t/tmp/.ltt-call.AbC123xyz9",
      "x1\t/tmp/.ltt-call.AbC123xyz9",
      "",
    ]) {
      expect(parseBrokerRequest(line), line).toBeNull();
    }
  });
});

describe("renderRequesterScript", () => {
  it("names the call channel and no path of the real binary", () => {
    const script = renderRequesterScript("my-tool", "/run/llm-tool-test/log/calls", "/bin/bash");
    expect(script.startsWith("#!/bin/bash\n")).toBe(true);
    expect(script).toContain("__ltt_calls='/run/llm-tool-test/log/calls'");
    expect(script).not.toContain("/run/llm-tool-test/real");
  });
});

/** Prints its arguments, a line on stderr and its input, and fails with 3. */
const ECHO_TOOL = `#!/bin/bash
printf 'out:%s\\n' "$@"; echo err >&2; while IFS= read -r line; do echo "in:$line"; done; exit 3
`;

/**
 * A whole call without a sandbox: the requester (as the agent's command runs it), the harness's
 * call channel and the server (run by bash here, as bwrap runs it), the shim recording it.
 */
async function callThroughBroker(loadablesDir: string) {
  const dir = makeTempDir("ltt-broker-call-");
  const hostPath = process.env.PATH ?? "/usr/bin:/bin";
  const logDir = path.join(dir, "log");
  mkdirSync(logDir);
  mkdirSync(path.join(dir, "bin"));
  mkdirSync(path.join(dir, "requester"));
  const tool = path.join(dir, "bin", "echo-tool");
  writeFileSync(tool, ECHO_TOOL, { mode: 0o755 });
  const records = path.join(dir, "records.log");
  const bash = await resolveRealBinary("bash", hostPath);
  const shim = await writeShim({
    binary: "echo-tool",
    realPath: tool,
    shimDir: path.join(dir, "shim"),
    logFile: records,
    bash,
  });
  writeFileSync(
    path.join(dir, "requester", "echo-tool"),
    renderRequesterScript("echo-tool", path.join(logDir, CALLS_FIFO), bash, loadablesDir),
    { mode: 0o755 },
  );
  const bashRun = (args: string[], signal?: AbortSignal) =>
    runProcess({
      file: bash,
      args: ["--noprofile", "--norc", "-c", ...args],
      cwd: dir,
      env: { PATH: hostPath },
      timeoutMs: signal ? 0 : 10_000,
      outputCapBytes: 4096,
      ...(signal ? { signal } : {}),
    });
  const broker = await openShimBroker({
    logDir,
    baseDir: dir,
    searchPath: hostPath,
    startServer: (controlDir, signal) =>
      bashRun([BROKER_SERVER_SCRIPT, "llm-tool-test-broker", controlDir, shim], signal),
    giveStatus: async (folder, status) => {
      await bashRun([STATUS_WRITER_SCRIPT, "llm-tool-test-status", folder, String(status)]);
    },
  });
  try {
    const result = await runShell({
      command:
        "printf 'one\\ntwo\\n' | echo-tool a 'b c'; echo \"status $?\"; echo-tool < /dev/null; echo \"status $?\"",
      cwd: dir,
      env: { PATH: `${path.join(dir, "requester")}:${hostPath}` },
      timeoutMs: 20_000,
      outputCapBytes: 65_536,
    });
    return { result, records: await readShimLog(records) };
  } finally {
    await broker.close();
  }
}

describe("a call through the requester, the harness and the server", () => {
  const expected = {
    // printf with no arguments prints its format once: `out:`.
    stdout: "out:a\nout:b c\nin:one\nin:two\nstatus 3\nout:\nstatus 3\n",
    stderr: "err\nerr\n",
    argv: [["echo-tool", "a", "b c"], ["echo-tool"]],
  };

  it.skipIf(!existsSync("/usr/lib/bash/mktemp"))(
    "relays input, output and status, and is recorded, with bash's loadable builtins",
    async () => {
      const { result, records } = await callThroughBroker("/usr/lib/bash");
      expect([result.stdout, result.stderr]).toEqual([expected.stdout, expected.stderr]);
      expect(records.map((record) => record.argv)).toEqual(expected.argv);
    },
  );

  it("does the same with the system's commands where the builtins are absent", async () => {
    const { result, records } = await callThroughBroker("/nonexistent/bash-loadables");
    expect([result.stdout, result.stderr]).toEqual([expected.stdout, expected.stderr]);
    expect(records.map((record) => record.argv)).toEqual(expected.argv);
  });
});
