/** The report folder as a workflow artifact, and the links to it. */
import { readdir } from "node:fs/promises";
import path from "node:path";
import type { ArtifactClient, RepoRef } from "./types.js";

/** Every regular file under `dir` (sorted, so the archive's order is stable). */
async function listFilesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => path.join(entry.parentPath, entry.name))
    .sort();
}

/** Uploads everything in the report folder under `name`; returns the artifact's id. */
export async function uploadReportArtifact(
  client: ArtifactClient,
  name: string,
  dir: string,
  options: { retentionDays?: number } = {},
): Promise<{ id: number | null; files: number }> {
  const files = await listFilesUnder(dir);
  const result = await client.uploadArtifact(name, files, dir, {
    ...(options.retentionDays ? { retentionDays: options.retentionDays } : {}),
  });
  return { id: result.id ?? null, files: files.length };
}

export function formatRunUrl(serverUrl: string, repo: RepoRef, runId: number): string {
  return `${serverUrl.replace(/\/+$/, "")}/${repo.owner}/${repo.repo}/actions/runs/${runId}`;
}

export function formatArtifactUrl(
  serverUrl: string,
  repo: RepoRef,
  runId: number,
  artifactId: number,
): string {
  return `${formatRunUrl(serverUrl, repo, runId)}/artifacts/${artifactId}`;
}
