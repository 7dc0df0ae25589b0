import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { chmod, mkdir, readdir, readFile, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import {
  AGENT_CLIS,
  type AgentCli,
  agentCliLockDir,
  agentCliLockManifest,
  CLAUDE_CODE_PACKAGE,
  CLAUDE_CODE_VERSION,
  provideAgentCli,
  readAgentCliLock,
} from "../../src/action/agent-cli-install.js";
import { createProgramRunner, type RunProgram } from "../../src/action/run-program.js";
import { isExecutableFile, resolveCliBinary } from "../../src/agents/cli-binary.js";
import { ConfigError } from "../../src/errors.js";
import { startLoopbackServer } from "../support/loopback-server.js";
import { makeTempDir } from "../support/temp-dirs.js";

const ROOT = path.resolve(import.meta.dirname, "../..");
let dir: string;
let installDir: string;
let log: string[];
let calls: { file: string; args: string[]; env: Record<string, string> }[];

beforeEach(async () => {
  dir = makeTempDir("agent-cli-install-");
  installDir = path.join(dir, "install");
  log = [];
  calls = [];
});

async function writeExecutable(file: string): Promise<string> {
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, "#!/bin/sh\necho 2.1.197\n");
  await chmod(file, 0o755);
  return file;
}

/** npm as the action runs it, without the network: records the call and does what `install` says. */
function fakeNpm(install: "binary" | "nothing" | "fail"): RunProgram {
  return async ({ file, args, env }) => {
    calls.push({ file, args, env });
    if (install === "fail")
      return { exitCode: 1, stdout: "", stderr: "npm error code E403\nnpm error 403 Forbidden" };
    if (install === "binary") await writeExecutable(path.join(installDir, "node_modules", ".bin", "claude"));
    return { exitCode: 0, stdout: "added 3 packages", stderr: "" };
  };
}

const provide = (env: Record<string, string | undefined>, runProgram: RunProgram) =>
  provideAgentCli(AGENT_CLIS["claude-code"], {
    env,
    installDir,
    runProgram,
    log: (m) => log.push(m),
    searchFrom: [],
  });

describe("provideAgentCli: Claude Code", () => {
  it("pins the version the tests run against", async () => {
    const installed = JSON.parse(
      await readFile(path.join(ROOT, "node_modules", CLAUDE_CODE_PACKAGE, "package.json"), "utf8"),
    ) as { version: string };
    expect(CLAUDE_CODE_VERSION).toBe(installed.version);
  });

  it("uses a claude on PATH and installs nothing", async () => {
    const claude = await writeExecutable(path.join(dir, "bin", "claude"));
    const found = await provide({ PATH: `/nowhere:${path.dirname(claude)}` }, fakeNpm("binary"));
    expect(found).toBe(claude);
    expect(calls).toEqual([]);
    expect(log).toEqual([`Claude Code: using ${claude} (found on PATH).`]);
  });

  it("uses LLM_TOOL_TEST_CLAUDE_BIN, and does not install over a wrong one", async () => {
    const claude = await writeExecutable(path.join(dir, "elsewhere", "claude-2"));
    expect(await provide({ LLM_TOOL_TEST_CLAUDE_BIN: claude, PATH: "" }, fakeNpm("binary"))).toBe(claude);
    expect(log).toEqual([`Claude Code: using ${claude} (from LLM_TOOL_TEST_CLAUDE_BIN).`]);
    const wrong = provide(
      { LLM_TOOL_TEST_CLAUDE_BIN: path.join(dir, "missing"), PATH: "" },
      fakeNpm("binary"),
    );
    await expect(wrong).rejects.toThrow(ConfigError);
    await expect(wrong).rejects.toThrow(/is not an executable file/);
    expect(calls).toEqual([]);
  });

  it("installs the pinned version with npm ci from the action's lock into its folder when none is found, without the secrets", async () => {
    const env = {
      PATH: "/nonexistent",
      HOME: "/home/runner",
      npm_config_registry: "https://registry.example.com/",
      ANTHROPIC_API_KEY: "sk-ant-canary-7f3a",
      GITHUB_TOKEN: "ghs_canary_9b2c",
    };
    const found = await provide(env, fakeNpm("binary"));
    expect(found).toBe(path.join(installDir, "node_modules", ".bin", "claude"));
    // npm ci's project: a copy of the lock the action ships.
    for (const file of ["package.json", "package-lock.json"]) {
      expect(await readFile(path.join(installDir, file), "utf8")).toBe(
        await readFile(path.join(ROOT, "agent-cli-locks", "claude-code", file), "utf8"),
      );
    }
    expect(calls).toEqual([
      {
        file: "npm",
        args: ["ci", "--prefix", installDir, "--no-audit", "--no-fund"],
        env: {
          PATH: "/nonexistent",
          HOME: "/home/runner",
          npm_config_registry: "https://registry.example.com/",
        },
      },
    ]);
    expect(log).toEqual([
      `Claude Code: no \`claude\` on PATH; installing @anthropic-ai/claude-code@${CLAUDE_CODE_VERSION} with npm ci from the action's lock (every package's sha512 pinned) into ${installDir}.`,
      `Claude Code: using ${found} (@anthropic-ai/claude-code@${CLAUDE_CODE_VERSION}, installed by the action from its lock).`,
    ]);
  });

  it("fails with npm's words when the install fails, or leaves no binary", async () => {
    await expect(provide({ PATH: "" }, fakeNpm("fail"))).rejects.toThrow(
      `could not install Claude Code (@anthropic-ai/claude-code@${CLAUDE_CODE_VERSION}) for "agent: claude-code": npm exited with 1: npm error code E403\nnpm error 403 Forbidden; install it in an earlier step or set LLM_TOOL_TEST_CLAUDE_BIN`,
    );
    await expect(provide({ PATH: "" }, fakeNpm("nothing"))).rejects.toThrow(
      /^npm installed @anthropic-ai\/claude-code@[\d.]+ into .*, but no `claude` binary is there/,
    );
  });
});

describe("provideAgentCli: every CLI the action installs", () => {
  for (const [agent, cli] of Object.entries(AGENT_CLIS)) {
    it(`${agent}: pins the version the tests run against, and installs it with npm ci from its lock when none is found`, async () => {
      const installed = JSON.parse(
        await readFile(
          path.join(ROOT, "node_modules", ...cli.packageName.split("/"), "package.json"),
          "utf8",
        ),
      ) as { version: string };
      expect(cli.version).toBe(installed.version);

      const npm: RunProgram = async ({ file, args, env }) => {
        calls.push({ file, args, env });
        await writeExecutable(path.join(installDir, "node_modules", ".bin", cli.command));
        return { exitCode: 0, stdout: "added 1 package", stderr: "" };
      };
      const found = await provideAgentCli(cli, {
        env: { PATH: "/nowhere", HOME: dir },
        installDir,
        runProgram: npm,
        log: (m) => log.push(m),
        searchFrom: [],
      });
      expect(found).toBe(path.join(installDir, "node_modules", ".bin", cli.command));
      expect(calls.map((c) => c.args)).toEqual([["ci", "--prefix", installDir, "--no-audit", "--no-fund"]]);
      expect(JSON.parse(await readFile(path.join(installDir, "package.json"), "utf8"))).toEqual(
        agentCliLockManifest(agent, cli),
      );
      expect(log.at(-1)).toBe(
        `${cli.label}: using ${found} (${cli.packageName}@${cli.version}, installed by the action from its lock).`,
      );
    });
  }
});

/** Where each CLI with a native binary per platform keeps the linux x64 one (GitHub's ubuntu runners). */
const LINUX_X64_PACKAGES: Record<string, string> = {
  "claude-code": "@anthropic-ai/claude-code-linux-x64",
  codex: "@openai/codex-linux-x64",
  opencode: "opencode-linux-x64",
};

describe("the action's locks (agent-cli-locks/)", () => {
  for (const [agent, cli] of Object.entries(AGENT_CLIS)) {
    it(`${agent}: locks ${cli.packageName} at the pinned version, every package with its address and sha512`, async () => {
      const lockDir = agentCliLockDir(agent);
      expect(lockDir).toBe(path.join(ROOT, "agent-cli-locks", agent));
      expect(JSON.parse(await readFile(path.join(lockDir, "package.json"), "utf8"))).toEqual(
        agentCliLockManifest(agent, cli),
      );
      const lock = JSON.parse(await readFile(path.join(lockDir, "package-lock.json"), "utf8")) as {
        lockfileVersion: number;
        packages: Record<string, { version: string; resolved?: string; integrity?: string }>;
      };
      expect(lock.lockfileVersion).toBe(3);
      expect(lock.packages[`node_modules/${cli.packageName}`]?.version).toBe(cli.version);
      const entries = Object.entries(lock.packages).filter(([key]) => key !== "");
      for (const [key, entry] of entries) {
        expect(entry.resolved, key).toMatch(/^https:\/\/registry\.npmjs\.org\//);
        expect(entry.integrity, key).toMatch(/^sha512-[A-Za-z0-9+/]{86}==$/);
      }
      const linux = LINUX_X64_PACKAGES[agent];
      if (linux) expect(Object.keys(lock.packages)).toContain(`node_modules/${linux}`);
      // The check provideAgentCli runs before npm does.
      expect(readAgentCliLock(lockDir, cli)).toBe(entries.length);
    });
  }

  it("refuses a lock made for another version (a bump without re-locking), an entry without integrity, a dependency left out, a missing lock", async () => {
    const cli = AGENT_CLIS.codex;
    const bumped = { ...cli, version: "0.999.0" };
    const lockDir = agentCliLockDir("codex");
    expect(() => readAgentCliLock(lockDir, bumped)).toThrow(
      `${path.join(lockDir, "package-lock.json")}: locks @openai/codex@${cli.version}, but the action runs 0.999.0; run \`npm run lock-agent-clis\` (scripts/lock-agent-clis.mjs)`,
    );
    // provideAgentCli stops there, before npm runs.
    await expect(
      provideAgentCli(bumped, {
        env: { PATH: "/nowhere" },
        installDir,
        runProgram: fakeNpm("binary"),
        log: (m) => log.push(m),
        searchFrom: [],
      }),
    ).rejects.toThrow(/locks @openai\/codex@[\d.]+, but the action runs 0\.999\.0/);
    expect(calls).toEqual([]);

    const edited = path.join(dir, "edited");
    await mkdir(edited);
    await writeFile(path.join(edited, "package.json"), await readFile(path.join(lockDir, "package.json")));
    const lock = JSON.parse(await readFile(path.join(lockDir, "package-lock.json"), "utf8"));
    delete lock.packages["node_modules/@openai/codex-linux-x64"].integrity;
    await writeFile(path.join(edited, "package-lock.json"), JSON.stringify(lock));
    expect(() => readAgentCliLock(edited, cli)).toThrow(
      `${path.join(edited, "package-lock.json")}: "node_modules/@openai/codex-linux-x64" has no https download address or no sha512 integrity`,
    );

    // npm ci refuses a lock that leaves out an optional package for another platform.
    const lockWithGap = JSON.parse(await readFile(path.join(lockDir, "package-lock.json"), "utf8"));
    delete lockWithGap.packages["node_modules/@openai/codex-win32-x64"];
    await writeFile(path.join(edited, "package-lock.json"), JSON.stringify(lockWithGap));
    expect(() => readAgentCliLock(edited, cli)).toThrow(
      `${path.join(edited, "package-lock.json")}: "node_modules/@openai/codex" depends on @openai/codex-win32-x64, which the lock leaves out (npm ci would refuse it)`,
    );

    const missing = path.join(dir, "missing");
    expect(() => readAgentCliLock(missing, cli)).toThrow(ConfigError);
    expect(() => readAgentCliLock(missing, cli)).toThrow(
      new RegExp(`^${path.join(missing, "package.json")}: Codex's lock cannot be read \\(ENOENT`),
    );
  });
});

describe("provideAgentCli: never the pull request's program", () => {
  it("ignores a node_modules/@openai/codex the workspace commits (and its .bin link on PATH), and installs the pinned one", async () => {
    const workspace = path.join(dir, "workspace");
    const committed = path.join(workspace, "node_modules", "@openai");
    await mkdir(path.join(committed, "codex", "bin"), { recursive: true });
    await writeFile(
      path.join(committed, "codex", "package.json"),
      '{"name":"@openai/codex","version":"9.9.9"}',
    );
    // The PR's "native binary", where the launcher's platform package keeps it, and a .bin link.
    const triple = process.arch === "arm64" ? "aarch64" : "x86_64";
    const fake = await writeExecutable(
      path.join(
        committed,
        `codex-linux-${process.arch}`,
        "vendor",
        `${triple}-unknown-linux-musl`,
        "bin",
        "codex",
      ),
    );
    await writeExecutable(path.join(committed, "codex", "bin", "codex.js"));
    await mkdir(path.join(workspace, "node_modules", ".bin"));
    await symlink("../@openai/codex/bin/codex.js", path.join(workspace, "node_modules", ".bin", "codex"));
    await writeFile(path.join(workspace, ".npmrc"), "registry=https://evil.example/\n");
    const cli = AGENT_CLIS.codex;
    const npm: RunProgram = async ({ file, args, env }) => {
      calls.push({ file, args, env });
      // npm's project (--prefix) is the lock alone.
      expect((await readdir(installDir)).sort()).toEqual(["package-lock.json", "package.json"]);
      await writeExecutable(path.join(installDir, "node_modules", ".bin", cli.command));
      return { exitCode: 0, stdout: "added 1 package", stderr: "" };
    };
    // What an earlier step may have left where the action installs: settings npm would read, a package.
    await mkdir(path.join(installDir, "node_modules", "@openai", "codex"), { recursive: true });
    await writeFile(path.join(installDir, ".npmrc"), "registry=https://evil.example/\n");
    for (const where of [
      { env: { PATH: "/nowhere", HOME: dir }, searchFrom: [workspace] },
      { env: { PATH: path.join(workspace, "node_modules", ".bin"), HOME: dir }, searchFrom: [] },
    ]) {
      calls = [];
      log = [];
      const found = await provideAgentCli(cli, {
        ...where,
        installDir,
        runProgram: npm,
        log: (m) => log.push(m),
        workspace,
      });
      expect(found).toBe(path.join(installDir, "node_modules", ".bin", cli.command));
      expect(found).not.toBe(fake);
      expect(calls.map((c) => c.args)).toEqual([["ci", "--prefix", installDir, "--no-audit", "--no-fund"]]);
      // npm gets nothing of the workspace's settings (its project is the install folder, run from "/").
      expect(JSON.stringify(calls)).not.toContain("evil.example");
      expect(log[0]).toMatch(/^Codex: ignoring .*: it is in the workspace, which the pull request controls/);
    }
  });
});

/** A package as a registry serves it: `package/` tarred and gzipped by the real tar. */
async function packFakeCli(root: string, greeting: string): Promise<Buffer> {
  const folder = path.join(root, "package");
  await mkdir(path.join(folder, "bin"), { recursive: true });
  await writeFile(
    path.join(folder, "package.json"),
    JSON.stringify({ name: FAKE_PACKAGE, version: "1.0.0", bin: { "fake-cli": "bin/fake-cli" } }),
  );
  await writeFile(path.join(folder, "bin", "fake-cli"), `#!/bin/sh\necho ${greeting}\n`);
  await chmod(path.join(folder, "bin", "fake-cli"), 0o755);
  const tarball = path.join(root, "fake-cli.tgz");
  execFileSync("tar", ["-czf", tarball, "package"], { cwd: root });
  return readFile(tarball);
}

const sha512 = (bytes: Buffer) => `sha512-${createHash("sha512").update(bytes).digest("base64")}`;

const FAKE_PACKAGE = "llm-tool-test-fake-cli";
const fakeCli: AgentCli = {
  label: "Fake CLI",
  packageName: FAKE_PACKAGE,
  version: "1.0.0",
  command: "fake-cli",
  envVar: "LLM_TOOL_TEST_FAKE_CLI_BIN",
  resolve: (env, searchFrom) =>
    resolveCliBinary(
      {
        agent: "fake-cli",
        label: "the fake CLI",
        envVar: "LLM_TOOL_TEST_FAKE_CLI_BIN",
        command: "fake-cli",
        packageName: FAKE_PACKAGE,
        findInNodeModules: (nodeModules) => {
          const bin = path.join(nodeModules, FAKE_PACKAGE, "bin", "fake-cli");
          return isExecutableFile(bin) ? bin : null;
        },
      },
      env,
      searchFrom,
    ),
};

describe("provideAgentCli: npm ci against a registry on 127.0.0.1", () => {
  it("refuses a tarball whose bytes differ from the lock's sha512, and installs the locked one", async () => {
    const locked = await packFakeCli(path.join(dir, "good"), "locked-fake-cli");
    const tampered = await packFakeCli(path.join(dir, "evil"), "tampered-fake-cli");
    // A compromised registry: the same name and version, other bytes, a packument that agrees with them.
    let served = tampered;
    const requests: string[] = [];
    const tarballPath = `/${FAKE_PACKAGE}/-/${FAKE_PACKAGE}-1.0.0.tgz`;
    const registry = await startLoopbackServer((request, response) => {
      requests.push(request.url ?? "");
      if (request.url === tarballPath) {
        response.writeHead(200, { "content-type": "application/octet-stream" }).end(served);
      } else if (request.url === `/${FAKE_PACKAGE}`) {
        const dist = { tarball: `${registry.url}${tarballPath}`, integrity: sha512(served) };
        response.writeHead(200, { "content-type": "application/json" }).end(
          JSON.stringify({
            name: FAKE_PACKAGE,
            "dist-tags": { latest: "1.0.0" },
            versions: {
              "1.0.0": { name: FAKE_PACKAGE, version: "1.0.0", bin: { "fake-cli": "bin/fake-cli" }, dist },
            },
          }),
        );
      } else response.writeHead(404).end("{}");
    });
    const closed = await startLoopbackServer(() => {});
    const deadProxy = closed.url;
    await closed.close();
    try {
      // The action's lock, as scripts/lock-agent-clis.mjs writes one, for the bytes it was made from.
      const lockDir = path.join(dir, "lock");
      await mkdir(lockDir);
      const manifest = { name: "fake-lock", private: true, dependencies: { [FAKE_PACKAGE]: "1.0.0" } };
      await writeFile(path.join(lockDir, "package.json"), JSON.stringify(manifest));
      await writeFile(
        path.join(lockDir, "package-lock.json"),
        JSON.stringify({
          name: "fake-lock",
          lockfileVersion: 3,
          requires: true,
          packages: {
            "": { name: "fake-lock", dependencies: manifest.dependencies },
            [`node_modules/${FAKE_PACKAGE}`]: {
              version: "1.0.0",
              // As in the action's locks: npm fetches it from the registry configured (a mirror, here 127.0.0.1).
              resolved: `https://registry.npmjs.org${tarballPath}`,
              integrity: sha512(locked),
              bin: { "fake-cli": "bin/fake-cli" },
            },
          },
        }),
      );
      await mkdir(path.join(dir, "home"));
      await mkdir(path.join(dir, "tmp"));
      const env = {
        PATH: process.env.PATH,
        HOME: path.join(dir, "home"),
        TMPDIR: path.join(dir, "tmp"),
        // A cache of its own (npm's cache is keyed by integrity), and no machine's or user's npmrc.
        npm_config_cache: path.join(dir, "npm-cache"),
        npm_config_userconfig: path.join(dir, "no-user-npmrc"),
        npm_config_globalconfig: path.join(dir, "no-global-npmrc"),
        npm_config_registry: `${registry.url}/`,
        npm_config_update_notifier: "false",
        // npm retries a download that fails its integrity check, the second time after 10 s or more.
        npm_config_fetch_retries: "0",
        // Should npm still ask registry.npmjs.org, it would meet a closed port, never the network.
        npm_config_https_proxy: deadProxy,
        npm_config_proxy: deadProxy,
        npm_config_noproxy: "127.0.0.1",
      };
      const install = (installDir: string) =>
        provideAgentCli(fakeCli, {
          env,
          installDir,
          lockDir,
          runProgram: createProgramRunner(),
          log: (m) => log.push(m),
          searchFrom: [],
        });

      const refused = install(path.join(dir, "install-tampered"));
      await expect(refused).rejects.toThrow(ConfigError);
      await expect(refused).rejects.toThrow(
        /^could not install Fake CLI \(llm-tool-test-fake-cli@1\.0\.0\) for "agent: fake-cli": a downloaded tarball does not match the sha512 in the action's lock \(npm EINTEGRITY\).*; install it in an earlier step or set LLM_TOOL_TEST_FAKE_CLI_BIN$/s,
      );
      expect(requests).toContain(tarballPath);
      expect(existsSync(path.join(dir, "install-tampered", "node_modules", FAKE_PACKAGE))).toBe(false);

      served = locked;
      const found = await install(path.join(dir, "install-locked"));
      expect(found).toBe(path.join(dir, "install-locked", "node_modules", ".bin", "fake-cli"));
      expect(execFileSync(found, { encoding: "utf8" })).toBe("locked-fake-cli\n");
    } finally {
      await registry.close();
    }
  });
});
