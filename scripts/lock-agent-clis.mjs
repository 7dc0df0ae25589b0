#!/usr/bin/env -S npx tsx
/**
 * Writes agent-cli-locks/<agent>/ (package.json + package-lock.json) for every agent CLI the action
 * installs (src/action/agent-cli-install.ts's AGENT_CLIS), at the version it pins: the action
 * installs from these with `npm ci`, which refuses a tarball whose sha512 differs from the lock's.
 * Run it after changing a pinned version (tests/action/agent-cli-install.test.ts fails until then):
 *
 *   npm run lock-agent-clis
 *
 * npm resolves the tree with `--package-lock-only` in a temp folder (nothing is downloaded but the
 * packuments, no script runs) from the public registry, whatever the user's .npmrc says. The lock
 * keeps every platform's optional packages (Codex's, OpenCode's, Claude Code's native binaries);
 * `npm ci` installs the runner's. An optional package the registry does not have at that version
 * (npm leaves it out of the lock silently, and npm ci would then refuse the lock) is dropped from
 * its parent's entry, with a warning: no runner can install it anyway. Then each lock is checked as
 * the action checks it.
 */
import { execFileSync } from "node:child_process";
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import {
  AGENT_CLIS,
  agentCliLockManifest,
  lockedDependency,
  readAgentCliLock,
} from "../src/action/agent-cli-install.ts";

const REGISTRY = "https://registry.npmjs.org/";
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const only = process.argv.slice(2);

for (const [agent, cli] of Object.entries(AGENT_CLIS)) {
  if (only.length > 0 && !only.includes(agent)) continue;
  const work = await mkdtemp(path.join(os.tmpdir(), `lock-${agent}-`));
  try {
    await writeFile(
      path.join(work, "package.json"),
      `${JSON.stringify(agentCliLockManifest(agent, cli), null, 2)}\n`,
    );
    execFileSync(
      "npm",
      [
        "install",
        "--package-lock-only",
        "--ignore-scripts",
        "--no-audit",
        "--no-fund",
        "--save-exact",
        // Each package's address in the lock, whatever an .npmrc says: the action's check wants it.
        "--omit-lockfile-registry-resolved=false",
        `--registry=${REGISTRY}`,
      ],
      { cwd: work, stdio: ["ignore", "inherit", "inherit"] },
    );
    await dropUnpublishedOptionals(path.join(work, "package-lock.json"), agent);
    const count = readAgentCliLock(work, cli);
    const target = path.join(root, "agent-cli-locks", agent);
    await mkdir(target, { recursive: true });
    for (const file of ["package.json", "package-lock.json"]) {
      await copyFile(path.join(work, file), path.join(target, file));
    }
    console.log(`agent-cli-locks/${agent}: ${cli.packageName}@${cli.version}, ${count} package(s) locked`);
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

/** Drops from each entry of the lock the optional dependencies npm could not resolve, saying which. */
async function dropUnpublishedOptionals(lockFile, agent) {
  const lock = JSON.parse(await readFile(lockFile, "utf8"));
  for (const [key, entry] of Object.entries(lock.packages)) {
    for (const name of Object.keys(entry.optionalDependencies ?? {})) {
      if (lockedDependency(lock.packages, key, name)) continue;
      console.warn(
        `agent-cli-locks/${agent}: ${key || "(root)"}'s optional ${name} is not on the registry at ${entry.optionalDependencies[name]}: left out`,
      );
      delete entry.optionalDependencies[name];
    }
  }
  await writeFile(lockFile, `${JSON.stringify(lock, null, 2)}\n`);
}
