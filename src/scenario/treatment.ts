/**
 * A scenario's treatment: what a pull request is meant to change, apart from what is measured —
 * the guidance files (the scenario's own and each variant's) with their modes, and the tool's build
 * where it can be known (a `target.binary` that is a file in the repository). Recorded per scenario
 * in the report, so a comparison can say "guidance changed: `AGENTS.md`" instead of refusing to
 * compare. Paths are relative to the repository root, so every checkout names a file alike.
 */
import { createHash } from "node:crypto";
import { constants } from "node:fs";
import { open, realpath } from "node:fs/promises";
import path from "node:path";
import { findReadableRoot, isInside } from "./paths.js";
import type {
  Guidance,
  ScenarioTreatment,
  TreatmentFile,
  TreatmentGuidance,
  UnhashedScenario,
} from "./types.js";

/** A tool's build bigger than this is not hashed (its sha256 stays null): a hash is not worth a minute. */
const MAX_TOOL_BYTES = 512 * 1024 * 1024;

/**
 * What one load has already worked out: every scenario of a suite usually names the same guidance
 * file and the same build (a 100 MB binary hashed once, not once per scenario).
 */
export interface TreatmentCache {
  roots: Map<string, Promise<string>>;
  hashes: Map<string, Promise<string | null>>;
}

export function createTreatmentCache(): TreatmentCache {
  return { roots: new Map(), hashes: new Map() };
}

function remember<T>(map: Map<string, Promise<T>>, key: string, compute: () => Promise<T>): Promise<T> {
  let value = map.get(key);
  if (!value) {
    value = compute();
    map.set(key, value);
  }
  return value;
}

export async function computeTreatment(
  scenario: UnhashedScenario,
  cache: TreatmentCache = createTreatmentCache(),
): Promise<ScenarioTreatment> {
  const dir = path.dirname(scenario.source.file);
  const root = await remember(cache.roots, dir, async () => (await findReadableRoot(dir)).dir);
  const describeFile = async (file: string, maxBytes: number): Promise<TreatmentFile> => ({
    path: path.relative(root, file).split(path.sep).join("/"),
    sha256: await remember(cache.hashes, file, () => hashRegularFile(file, maxBytes)),
  });
  const describeGuidance = async (guidance: Guidance | undefined): Promise<TreatmentGuidance | null> =>
    guidance ? { ...(await describeFile(guidance.file, MAX_TOOL_BYTES)), mode: guidance.mode } : null;

  const variants: Record<string, TreatmentGuidance | null> = {};
  for (const variant of scenario.variants) variants[variant.name] = await describeGuidance(variant.guidance);
  const binary = scenario.target.binary;
  const tool =
    binary && path.isAbsolute(binary) && (await isInRepository(root, binary))
      ? await describeFile(binary, MAX_TOOL_BYTES)
      : null;
  return { guidance: await describeGuidance(scenario.guidance), variants, tool };
}

/** Written and with symbolic links resolved; a path that does not exist yet counts by its spelling. */
async function isInRepository(root: string, file: string): Promise<boolean> {
  if (!isInside(root, file)) return false;
  const [realRoot, realFile] = await Promise.all([realpath(root), realpath(file).catch(() => null)]);
  return realFile === null || isInside(realRoot, realFile);
}

/**
 * sha256 of a regular file of at most `maxBytes`, else null (missing, a folder, a FIFO or device,
 * too big). Checked on the opened handle, so a file swapped for a FIFO after a check cannot hang it.
 */
async function hashRegularFile(file: string, maxBytes: number): Promise<string | null> {
  let handle: Awaited<ReturnType<typeof open>> | undefined;
  try {
    // O_NONBLOCK: opening a FIFO with no writer would otherwise wait forever.
    handle = await open(file, constants.O_RDONLY | constants.O_NONBLOCK).catch(() => undefined);
    if (!handle) return null;
    const info = await handle.stat();
    if (!info.isFile() || info.size > maxBytes) return null;
    const hash = createHash("sha256");
    const buffer = Buffer.alloc(1024 * 1024);
    let total = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, null);
      if (bytesRead === 0) break;
      total += bytesRead;
      if (total > maxBytes) return null;
      hash.update(buffer.subarray(0, bytesRead));
    }
    return hash.digest("hex");
  } catch {
    return null;
  } finally {
    await handle?.close();
  }
}
