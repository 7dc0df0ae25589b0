/**
 * The bwrap sandbox (src/sandbox/bwrap.ts builds its arguments): `root/` becomes `/`, the work dir
 * is `root/home/eval` (HOME and cwd `/home/eval`), TMPDIR `/tmp` is `root/tmp`, the shim's folder
 * is bound read-only at /run/llm-tool-test/bin and its record channel's folder (read-only too; the
 * FIFO in it stays writable) at /run/llm-tool-test/log. Every command, an agent CLI's too, has the
 * scenario's network: without it, an agent CLI reaches only the host loopback ports it names (its
 * credential proxy), bridged in by loopback-bridge.ts.
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
import { shellLauncherArgs } from "./persistent-shell.js";
import { collectProgramBinds } from "./program-binds.js";
import { assertInsideRoot } from "./sandbox-paths.js";
import type { ProcessSettings, SandboxStrategy, SandboxStrategyOptions } from "./sandbox-strategy.js";
import { resolveRealBinary } from "./shim.js";
import { planShimCover } from "./shim-cover.js";

/** Checks that bwrap runs here (a ConfigError saying how to fix it otherwise), then the strategy. */
export async function createBwrapStrategy(options: SandboxStrategyOptions): Promise<SandboxStrategy> {
  const { parentPath, targetBinary } = options;
  const found = options.bwrapPath ?? (await resolveRealBinary("bwrap", parentPath).catch(() => null));
  const probe = await probeBwrap(found, parentPath);
  // probeBwrap refuses a missing binary.
  const bwrapPath = found as string;
  return {
    endsLeftoverProcesses: true,
    layOut(base) {
      const root = path.join(base, "root");
      return { root, workDir: path.join(root, SANDBOX_HOME), tmpDir: path.join(root, "tmp") };
    },
    async open(layout, processes) {
      // The target must be visible inside, so a bare name (or an absolute path) is found on the host
      // now and its folders bound; a relative path is looked up inside after setup.
      const hostTarget =
        targetBinary && (!targetBinary.includes("/") || path.isAbsolute(targetBinary))
          ? await resolveRealBinary(targetBinary, parentPath)
          : null;
      const readOnlyPaths = [...(options.readOnlyPaths ?? [])];
      if (hostTarget) readOnlyPaths.push(...(await collectTargetBinds(hostTarget, layout.base)));
      const targetDir = hostTarget ? path.dirname(hostTarget) : null;
      const ownPathDirs = targetDir && !isUnderSystemDir(targetDir) ? [targetDir] : [];
      const cover = hostTarget ? await planShimCover(hostTarget, layout.base, ownPathDirs) : null;
      // An agent's command: the shim over every path of the target, the real one where only it looks.
      const shimBinds = (shimmed: boolean | undefined) =>
        cover && shimmed && targetBinary
          ? [
              ...cover.realBinds,
              ...cover.coveredPaths.map((covered) => ({
                from: path.join(layout.shimDir, path.basename(targetBinary)),
                to: covered,
              })),
            ]
          : [];

      const host = await inspectHostSystem();
      const hostname = options.hostname ?? DEFAULT_HOSTNAME;
      await writeIdentityFiles(layout.root, probe.mapsUser, hostname);
      const overlays = options.writableSystemDirs
        ? await openSystemOverlays(host, layout, { bwrapPath, parentPath, mapsUser: probe.mapsUser })
        : null;
      if (targetBinary) {
        await mkdir(layout.shimDir, { recursive: true });
        await mkdir(layout.logDir, { recursive: true });
      }
      const buildArgs = (
        network: boolean,
        binds: string[],
        movedBinds: { from: string; to: string }[] = [],
      ) =>
        buildBwrapArgs({
          root: layout.root,
          hostname,
          ...(overlays ? { overlays: overlays.overlays } : {}),
          network,
          mapsUser: probe.mapsUser,
          host,
          readOnlyPaths: [...new Set([...readOnlyPaths, ...binds])],
          ...(targetBinary ? { shimDir: layout.shimDir, logDir: layout.logDir } : {}),
          movedBinds,
        });
      const shellArgs = buildArgs(options.network, []);
      const gateRoom = createBwrapGateRoom({
        base: layout.base,
        workDir: layout.workDir,
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

      return {
        workDir: SANDBOX_HOME,
        tmpDir: "/tmp",
        shimDir: SANDBOX_SHIM_DIR,
        logDir: SANDBOX_LOG_DIR,
        userName: SANDBOX_USER,
        basePath: targetDir && !isUnderSystemDir(targetDir) ? `${targetDir}:${SANDBOX_PATH}` : SANDBOX_PATH,
        runShell: (command, { shimmed, ...run }) => {
          const args =
            run.hostPaths?.length || (cover && shimmed)
              ? buildArgs(options.network, run.hostPaths ?? [], shimBinds(shimmed))
              : shellArgs;
          return runBwrap([...args, "--", host.bash, "-c", command], run);
        },
        // One sandbox for the shell's whole life: its control folder read-only (the FIFOs in it stay
        // writable, and cannot be replaced or chmodded back).
        startShell: (controlDir, { shimmed, ...run }) => {
          const args = buildArgs(options.network, run.hostPaths ?? [], [
            ...shimBinds(shimmed),
            { from: controlDir, to: SANDBOX_SHELL_DIR },
          ]);
          const exited = runBwrap([...args, "--", host.bash, ...shellLauncherArgs(SANDBOX_SHELL_DIR)], run);
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
            const bwrapArgs = buildArgs(options.network, allBinds, shimBinds(shimmed));
            return runBwrap([...bwrapArgs, "--", file, ...args], { ...run, env });
          }
          const bridge = await openLoopbackBridge(layout.base, loopbackPorts);
          try {
            // The harness's own node runs the forwarder inside (not through the shim when node is the target).
            const hostNode = process.execPath;
            const realNode = await realpath(hostNode).catch(() => hostNode);
            const node =
              cover && shimmed && cover.coveredPaths.includes(realNode) ? cover.realInside : hostNode;
            const nodeBinds = await collectTargetBinds(hostNode, layout.base);
            const bwrapArgs = buildArgs(
              false,
              [...allBinds, ...nodeBinds],
              [...shimBinds(shimmed), { from: bridge.dir, to: SANDBOX_BRIDGE_DIR }],
            );
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
async function writeIdentityFiles(root: string, mapsUser: boolean, hostname: string): Promise<void> {
  const identity = renderIdentityFiles(mapsUser);
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
  found: { bwrapPath: string; parentPath: string; mapsUser: boolean },
): Promise<{ launcher: OverlayLauncher; overlays: SystemOverlay[] } | null> {
  const find = (name: string) =>
    resolveRealBinary(name, `${found.parentPath}:${SANDBOX_PATH}`).catch(() => null);
  const [unshare, sh, mount] = await Promise.all([find("unshare"), find("sh"), find("mount")]);
  if (!unshare || !sh || !mount) return null;
  const launcher = { unshare, sh, mount };
  if (!(await probeSystemOverlays(launcher, found.bwrapPath, found.mapsUser))) return null;
  const overlays = await prepareSystemOverlays(host, layout.root, path.join(layout.base, "overlay"));
  return overlays ? { launcher, overlays } : null;
}
