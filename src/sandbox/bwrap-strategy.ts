/**
 * The bwrap sandbox (src/sandbox/bwrap.ts builds its arguments): `root/` becomes `/`, the work dir
 * is `root/home/eval` (HOME and cwd `/home/eval`; a scenario's home layout names its own cwd and
 * HOME, unset or absent as it says, and the passwd home), TMPDIR `/tmp` is `root/tmp`, the shim's folder
 * is bound read-only at /run/llm-tool-test/bin and its record channel's folder (read-only too; the
 * FIFO in it stays writable) at /run/llm-tool-test/log. Every command, an agent CLI's too, has the
 * scenario's network: without it, an agent CLI reaches only the host loopback ports it names (its
 * credential proxy), bridged in by loopback-bridge.ts. The target itself runs only in the trial's
 * broker sandbox beside the agent's (shim-broker.ts: one for the trial, its server forking each call), where the recording shim covers it; the agent's
 * commands find a requester at each of its paths (and its call channel beside the records).
 */
import { mkdir, realpath, writeFile } from "node:fs/promises";
import path from "node:path";
import {
  buildBwrapArgs,
  collectTargetBinds,
  DEFAULT_HOSTNAME,
  ensureRootLinks,
  type HostSystem,
  inspectHostSystem,
  isUnderSystemDir,
  type OverlayLauncher,
  prepareSystemOverlays,
  probeBwrap,
  probeSystemOverlays,
  renderIdentityFiles,
  SANDBOX_BROKER_DIR,
  SANDBOX_HOME,
  SANDBOX_LOG_DIR,
  SANDBOX_PATH,
  SANDBOX_SHELL_DIR,
  SANDBOX_SHIM_DIR,
  SANDBOX_USER,
  type SystemOverlay,
  wrapWithOverlays,
} from "./bwrap.js";
import { runProcess } from "./exec.js";
import { createBwrapGateRoom } from "./gate-room.js";
import { openLoopbackBridge, SANDBOX_BRIDGE_DIR } from "./loopback-bridge.js";
import { shellLauncher } from "./persistent-shell.js";
import { collectProgramBinds } from "./program-binds.js";
import { assertInsideRoot } from "./sandbox-paths.js";
import type { ProcessSettings, SandboxStrategy, SandboxStrategyOptions } from "./sandbox-strategy.js";
import { resolveRealBinary } from "./shim.js";
import {
  BROKER_SERVER_SCRIPT,
  CALLS_FIFO,
  openShimBroker,
  renderRequesterScript,
  STATUS_WRITER_SCRIPT,
} from "./shim-broker.js";
import { planShimCover } from "./shim-cover.js";
import { locateTrustedBwrap } from "./trusted-bwrap.js";

/** Checks that bwrap runs here (a ConfigError saying how to fix it otherwise), then the strategy. */
export async function createBwrapStrategy(options: SandboxStrategyOptions): Promise<SandboxStrategy> {
  const { parentPath, targetBinary } = options;
  // Never the first bwrap on PATH (trusted-bwrap.ts).
  const bwrapPath = options.bwrapPath ?? (await locateTrustedBwrap(options.parentEnv ?? {}));
  const probe = await probeBwrap(bwrapPath);
  const workDir = options.home?.workDir ?? SANDBOX_HOME;
  const home = options.home ? options.home.home : SANDBOX_HOME;
  return {
    endsLeftoverProcesses: true,
    layOut(base) {
      const root = path.join(base, "root");
      return { root, workDir: path.join(root, workDir), tmpDir: path.join(root, "tmp") };
    },
    async open(layout, processes) {
      if (home !== null && options.home?.homeExists)
        await mkdir(path.join(layout.root, home), { recursive: true });
      // The target must be visible inside, so a bare name (or an absolute path) is found on the host
      // now and its folders bound; a relative path is looked up inside after setup.
      const hostTarget =
        targetBinary && (!targetBinary.includes("/") || path.isAbsolute(targetBinary))
          ? await resolveRealBinary(targetBinary, parentPath)
          : null;
      const readOnlyPaths = [...(options.readOnlyPaths ?? [])];
      const targetBinds = hostTarget ? await collectTargetBinds(hostTarget, layout.base) : [];
      readOnlyPaths.push(...targetBinds);
      const targetDir = hostTarget ? path.dirname(hostTarget) : null;
      const ownPathDirs = targetDir && !isUnderSystemDir(targetDir) ? [targetDir] : [];
      const cover = hostTarget ? await planShimCover(hostTarget, layout.base, ownPathDirs) : null;

      const host = await inspectHostSystem();
      const hostname = options.hostname ?? DEFAULT_HOSTNAME;
      await writeIdentityFiles(
        layout.root,
        probe.mapsUser,
        hostname,
        options.home?.passwdHome ?? SANDBOX_HOME,
      );
      const overlays = options.writableSystemDirs
        ? await openSystemOverlays(host, layout, { bwrapPath, mapsUser: probe.mapsUser })
        : null;
      if (targetBinary) {
        await mkdir(layout.shimDir, { recursive: true });
        await mkdir(layout.logDir, { recursive: true });
      }
      // The target runs outside the agent's sandbox (shim-broker.ts), except where a second
      // sandbox cannot share the first one's view: copy-on-write system folders (a second overlay
      // on the same upper folder), or a target that is the harness's own node (the bridge's).
      const hostNode = await realpath(process.execPath).catch(() => process.execPath);
      const brokered = cover !== null && !overlays && !cover.coveredPaths.includes(hostNode);
      const targetName = targetBinary ? path.basename(targetBinary) : "";
      const requester = path.join(layout.base, "requester", targetName);
      if (brokered) {
        await mkdir(path.dirname(requester), { recursive: true });
        await writeFile(
          requester,
          renderRequesterScript(targetName, path.posix.join(SANDBOX_LOG_DIR, CALLS_FIFO), host.bash),
          { mode: 0o755 },
        );
      }
      // The recording shim over every path of the target, the real one where only it looks.
      const realShimBinds = () =>
        cover
          ? [
              ...cover.realBinds,
              ...cover.coveredPaths.map((covered) => ({
                from: path.join(layout.shimDir, targetName),
                to: covered,
              })),
            ]
          : [];
      // An agent's command: brokered, the requester over every path of the target (the shim's too).
      const shimBinds = (shimmed: boolean | undefined) => {
        if (!cover || !shimmed) return [];
        if (!brokered) return realShimBinds();
        return [...cover.coveredPaths, path.posix.join(SANDBOX_SHIM_DIR, targetName)].map((covered) => ({
          from: requester,
          to: covered,
        }));
      };
      const buildArgs = (
        network: boolean,
        binds: string[],
        movedBinds: { from: string; to: string }[] = [],
        shown: readonly string[] = readOnlyPaths,
      ) =>
        buildBwrapArgs({
          root: layout.root,
          hostname,
          ...(overlays ? { overlays: overlays.overlays } : {}),
          network,
          mapsUser: probe.mapsUser,
          host,
          readOnlyPaths: [...new Set([...shown, ...binds])],
          ...(targetBinary ? { shimDir: layout.shimDir, logDir: layout.logDir } : {}),
          workDir,
          movedBinds,
        });
      // Brokered, the agent's shimmed commands do not see the target's own folders either (an npm
      // package's code could be run by `node` without its bin script).
      const agentShown = brokered
        ? readOnlyPaths.filter((entry) => !targetBinds.includes(entry))
        : readOnlyPaths;
      const agentArgs = (
        network: boolean,
        binds: string[],
        shimmed: boolean | undefined,
        extra: { from: string; to: string }[] = [],
      ) => buildArgs(network, binds, [...shimBinds(shimmed), ...extra], shimmed ? agentShown : readOnlyPaths);
      const shellArgs = buildArgs(options.network, []);
      const gateRoom = createBwrapGateRoom({
        base: layout.base,
        workDir: layout.workDir,
        visibleWorkDir: workDir,
        host,
        mapsUser: probe.mapsUser,
        hostname,
        network: options.network,
        readOnlyPaths,
      });
      const runBwrap = async (args: string[], run: ProcessSettings) => {
        await ensureRootLinks(layout.root, host);
        const command = overlays
          ? wrapWithOverlays(overlays.launcher, overlays.overlays, bwrapPath, args)
          : { file: bwrapPath, args };
        // Not `processes.place`: the pid namespace already ends what a command
        // leaves (endsLeftoverProcesses), so the trial has no cgroup.
        return runProcess({
          ...command,
          cwd: layout.base,
          ...run,
          processGroups: processes.groups,
        });
      };

      // One broker sandbox for the trial's calls of the target: its server forks each call there.
      const opened = brokered
        ? await openShimBroker({
            logDir: layout.logDir,
            baseDir: layout.base,
            searchPath: parentPath,
            beforeCall: () => ensureRootLinks(layout.root, host),
            startServer: (controlDir, signal) =>
              runBwrap(
                [
                  ...buildArgs(
                    options.network,
                    [],
                    [...realShimBinds(), { from: controlDir, to: SANDBOX_BROKER_DIR }],
                  ),
                  "--",
                  host.bash,
                  "--noprofile",
                  "--norc",
                  "-c",
                  BROKER_SERVER_SCRIPT,
                  "llm-tool-test-broker",
                  SANDBOX_BROKER_DIR,
                  path.posix.join(SANDBOX_SHIM_DIR, targetName),
                ],
                { env: { PATH: SANDBOX_PATH }, timeoutMs: 0, outputCapBytes: 4096, signal },
              ),
            giveStatus: async (dir, status) => {
              await runBwrap(
                [
                  ...buildArgs(options.network, []),
                  "--",
                  host.bash,
                  "-c",
                  STATUS_WRITER_SCRIPT,
                  "llm-tool-test-status",
                  dir,
                  String(status),
                ],
                { env: { PATH: SANDBOX_PATH }, timeoutMs: 10_000, outputCapBytes: 4096 },
              );
            },
          })
        : null;

      return {
        workDir,
        home,
        tmpDir: "/tmp",
        shimDir: SANDBOX_SHIM_DIR,
        logDir: SANDBOX_LOG_DIR,
        userName: SANDBOX_USER,
        basePath: targetDir && !isUnderSystemDir(targetDir) ? `${targetDir}:${SANDBOX_PATH}` : SANDBOX_PATH,
        runShell: (command, { shimmed, ...run }) => {
          const args =
            run.hostPaths?.length || (cover && shimmed)
              ? agentArgs(options.network, run.hostPaths ?? [], shimmed)
              : shellArgs;
          return runBwrap([...args, "--", host.bash, "-c", command], run);
        },
        shellBash: host.bash,
        // One sandbox for the shell's whole life: its control folder read-only (the FIFOs in it stay
        // writable, and cannot be replaced or chmodded back). The runner is its pid 1: no process
        // of bwrap's waits beside it, open to the agent's (persistent-shell.ts, the runner's memory),
        // and no signal from inside ends it.
        startShell: (controlDir, { shimmed, ...run }) => {
          const args = buildArgs(options.network, run.hostPaths ?? [], [
            ...shimBinds(shimmed),
            { from: controlDir, to: SANDBOX_SHELL_DIR },
          ]);
          const launcher = shellLauncher(SANDBOX_SHELL_DIR, host.bash);
          const exited = runBwrap([...args, "--as-pid-1", "--", launcher.file, ...launcher.args], run);
          return { visibleDir: SANDBOX_SHELL_DIR, exited };
        },
        // An external agent (a CLI) gets the scenario's network, as every command does: without it,
        // only the host loopback ports it names (its credential proxy) are bridged in.
        runProcess: async (file, args, { programs, loopbackPorts, shimmed, ...run }) => {
          const binds = path.isAbsolute(file) ? await collectTargetBinds(file, layout.base) : [];
          const shown = await collectProgramBinds(programs ?? [], parentPath, layout.base);
          const env = shown.pathDirs.length
            ? { ...run.env, PATH: [run.env.PATH, ...shown.pathDirs].filter(Boolean).join(":") }
            : run.env;
          const allBinds = [...binds, ...shown.binds];
          if (options.network || !loopbackPorts?.length) {
            const bwrapArgs = agentArgs(options.network, allBinds, shimmed);
            return runBwrap([...bwrapArgs, "--", file, ...args], { ...run, env });
          }
          const bridge = await openLoopbackBridge(layout.base, loopbackPorts);
          try {
            // The harness's own node runs the forwarder inside (not through the shim when node is the
            // target, which is then not brokered).
            const node =
              cover && shimmed && cover.coveredPaths.includes(hostNode) ? cover.realInside : process.execPath;
            const nodeBinds = await collectTargetBinds(process.execPath, layout.base);
            const bwrapArgs = agentArgs(false, [...allBinds, ...nodeBinds], shimmed, [
              { from: bridge.dir, to: SANDBOX_BRIDGE_DIR },
            ]);
            return await runBwrap([...bwrapArgs, "--", ...bridge.wrap(node, file, args)], { ...run, env });
          } finally {
            await bridge.close();
          }
        },
        gateRoom: gateRoom.paths,
        // The host image only: no overlays (the agent's changes to system folders), no shim.
        runGateShell: async (command, run) => {
          const args = await gateRoom.enter(run.hostPaths ?? []);
          return runProcess({
            file: bwrapPath,
            args: [...args, "--", host.bash, "-c", command],
            cwd: layout.base,
            ...run,
            processGroups: processes.groups,
          });
        },
        ...(cover && hostTarget ? { targetArgv0: hostTarget } : {}),
        ...(opened ? { close: async () => opened.close() } : {}),
        resolveTarget: async (binary) => {
          if (cover) return cover.realInside;
          const hostPath = await resolveRealBinary(binary, "", layout.workDir);
          assertInsideRoot(hostPath, layout.root, `target.binary "${binary}"`);
          return path.join("/", path.relative(layout.root, hostPath));
        },
      };
    },
  };
}

/** /etc/passwd, /etc/group and /etc/hostname of the sandbox (after the scenario's own files). */
async function writeIdentityFiles(
  root: string,
  mapsUser: boolean,
  hostname: string,
  passwdHome: string,
): Promise<void> {
  const identity = renderIdentityFiles(mapsUser, passwdHome);
  await mkdir(path.join(root, "etc"), { recursive: true });
  await writeFile(path.join(root, "etc", "passwd"), identity.passwd);
  await writeFile(path.join(root, "etc", "group"), identity.group);
  await writeFile(path.join(root, "etc", "hostname"), `${hostname}\n`);
}

/**
 * The copy-on-write system folders, when this host can mount them (see bwrap.ts); otherwise null
 * and they stay read-only, as for any scenario. Their scratch space is under the trial's temp dir.
 */
async function openSystemOverlays(
  host: HostSystem,
  layout: { root: string; base: string },
  found: { bwrapPath: string; mapsUser: boolean },
): Promise<{ launcher: OverlayLauncher; overlays: SystemOverlay[] } | null> {
  // From the system folders only, as bwrap itself: never a program planted earlier on PATH.
  const find = (name: string) => resolveRealBinary(name, SANDBOX_PATH).catch(() => null);
  const [unshare, sh, mount] = await Promise.all([find("unshare"), find("sh"), find("mount")]);
  if (!unshare || !sh || !mount) return null;
  const launcher = { unshare, sh, mount };
  if (!(await probeSystemOverlays(launcher, found.bwrapPath, found.mapsUser))) return null;
  const overlays = await prepareSystemOverlays(host, layout.root, path.join(layout.base, "overlay"));
  return overlays ? { launcher, overlays } : null;
}
