/**
 * Reads a scenario input (a scenario, rubric or dataset file) as text, refusing what is not a
 * regular file (a FIFO would block the read forever, `/dev/zero` would never end) and what is
 * larger than any real input, so a hostile path ends in a message instead of a hang.
 */
import { constants } from "node:fs";
import { open } from "node:fs/promises";

export const MAX_YAML_BYTES = 4 * 1024 * 1024;
export const MAX_DATASET_BYTES = 64 * 1024 * 1024;

/** The file's text, or the reason it cannot be read (for "cannot read the file (REASON)"). */
export async function readInputText(
  file: string,
  maxBytes: number,
): Promise<{ text: string } | { reason: string }> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    // O_NONBLOCK: opening a FIFO with no writer would otherwise wait forever.
    handle = await open(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    const failure = error as NodeJS.ErrnoException;
    return { reason: failure.code ?? failure.message };
  }
  try {
    const info = await handle.stat();
    if (!info.isFile()) return { reason: "not a regular file" };
    if (info.size > maxBytes) {
      return { reason: `larger than ${maxBytes / 1024 / 1024} MiB, more than any scenario input needs` };
    }
    return { text: await handle.readFile("utf8") };
  } catch (error) {
    const failure = error as NodeJS.ErrnoException;
    return { reason: failure.code ?? failure.message };
  } finally {
    await handle.close();
  }
}
