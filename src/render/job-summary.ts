/**
 * The job summary: the comment's layout with the full report expanded, kept under GitHub's 1 MiB
 * limit for a step's summary (measured in bytes of UTF-8, not characters).
 */
import { type CommentInput, renderLayout } from "./pr-comment.js";

/** 1 MiB is the limit; the margin leaves room for what the runner adds. */
export const SUMMARY_MAX_BYTES = 1_000_000;

export type SummaryInput = Omit<CommentInput, "key" | "maxChars"> & { maxBytes?: number };

export function renderJobSummary(input: SummaryInput): string {
  const maxBytes = input.maxBytes ?? SUMMARY_MAX_BYTES;
  // Characters first (a byte is at most one character), then shrink until the bytes fit.
  let maxChars = maxBytes;
  for (let attempt = 0; attempt < 8; attempt += 1) {
    const text = renderLayout(input, { marker: null, maxChars, reportOpen: true });
    const bytes = Buffer.byteLength(text, "utf8");
    if (bytes <= maxBytes) return text;
    maxChars = Math.floor((maxChars * maxBytes) / bytes) - 64;
  }
  // Pathological text (almost all 4-byte characters): cut bytes at a character boundary.
  return Buffer.from(
    renderLayout(input, { marker: null, maxChars: Math.floor(maxBytes / 4), reportOpen: true }),
  )
    .subarray(0, maxBytes)
    .toString("utf8")
    .replace(/\uFFFD+$/, "");
}

/** What a skipped run (a fork's pull request without the API key) writes to the summary. */
export function renderSkippedSummary(reason: string): string {
  return `## ⏭️ llm-tool-test: skipped\n\n${reason}\n`;
}
