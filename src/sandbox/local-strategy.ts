/**
 * The local sandbox: a fresh work dir on the host (`work/`, with `tmp/` next to it); commands run
 * there as the harness's user, with the parent's PATH after the shim.
 */
import path from "node:path";
import { runProcess } from "./exec.js";
import { createLocalGateRoom } from "./gate-room.js";
import type { ProcessSettings, SandboxStrategy, SandboxStrategyOptions } from "./sandbox-strategy.js";
import { resolveRealBinary } from "./shim.js";

export function createLocalStrategy(options: SandboxStrategyOptions): SandboxStrategy {
  const { parentPath } = options;
  return {
    endsLeftoverProcesses: false,
    layOut(base) {
      const workDir = path.join(base, "work");
      return { root: workDir, workDir, tmpDir: path.join(base, "tmp") };
    },
    async open(layout, processes) {
      const shell = await resolveShell(parentPath);
      const gateRoom = createLocalGateRoom(layout);
      const run = (file: string, args: string[], settings: ProcessSettings) =>
        runProcess({
          file,
          args,
          cwd: layout.workDir,
          ...settings,
          processGroups: processes.groups,
          ...(processes.place ? { place: processes.place } : {}),
        });
      return {
        workDir: layout.workDir,
        tmpDir: layout.tmpDir,
        shimDir: layout.shimDir,
        logDir: layout.logDir,
        userName: "agent",
        basePath: parentPath,
        runShell: (command, settings) => run(shell, ["-c", command], settings),
        gateRoom: gateRoom.paths,
        runGateShell: async (command, settings) => {
          await gateRoom.renew();
          return run(shell, ["-c", command], settings);
        },
        // Programs need no binding here: the host's files are all visible.
        runProcess: (file, args, { programs: _programs, ...settings }) => run(file, args, settings),
        resolveTarget: (binary) => resolveRealBinary(binary, parentPath, layout.workDir),
      };
    },
  };
}

/** bash on each PATH, looked up once per run rather than once per trial (a stat per PATH entry). */
const shellLookups = new Map<string, Promise<string>>();

function resolveShell(searchPath: string): Promise<string> {
  let lookup = shellLookups.get(searchPath);
  if (!lookup) {
    lookup = resolveRealBinary("bash", searchPath).catch(() => "/bin/bash");
    shellLookups.set(searchPath, lookup);
  }
  return lookup;
}
