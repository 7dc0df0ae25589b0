/**
 * The target shim: an executable named like the target binary, first on the agent's PATH. It
 * records every real invocation (argv, exit code, start, duration, cwd) as one line written to the
 * harness's record channel (shim-channel.ts: a FIFO the harness reads), then runs the real binary
 * transparently: stdin, stdout and stderr pass through, the exit code is preserved,
 * SIGTERM/SIGINT/SIGHUP are forwarded.
 *
 * Record line (tab-separated): `v2 start_us end_us exit_code argc cwd arg… .`, where the fields
 * after argc are the cwd, then the binary's name and each argument, with `%`, tab and newline written
 * `%25`, `%09`, `%0A` (any other byte as is: the line is bytes, read as latin1), and `.` ends a whole
 * line (a torn one has fewer fields or no `.`). The escaping is bash's own substitution and the times
 * come from $EPOCHREALTIME: a record starts no process. (`v1`, with base64 fields, is still read.)
 * A line is written with one write(2) no longer than PIPE_BUF,
 * so concurrent invocations (a pipe) never interleave; a longer one (huge arguments) is sent as
 * numbered parts `v1c key index count text`, reassembled by the reader.
 *
 * The exit code is bash's `wait` status: 128+n when the binary was killed by signal n, e.g. 141 for
 * SIGPIPE (`my-tool help | head -3`). It is recorded as is; evaluate/ does not count 141 as an error.
 */
import { constants as fsConstants } from "node:fs";
import { access, chmod, mkdir, readFile, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { InfraError } from "../errors.js";
import type { TargetInvocationRecord } from "./types.js";

/**
 * Below PIPE_BUF (4096 on Linux, 512 on macOS) and bash's stdio buffer, so printf writes the line
 * with a single write(2), which a pipe keeps whole among concurrent writers.
 */
function maxRecordLine(platform: NodeJS.Platform): number {
  return platform === "darwin" ? 440 : 3800;
}

export interface ShimOptions {
  /** Name of the target binary (a path's basename is used). */
  binary: string;
  /** Absolute path of the real binary, as seen where the shim runs. */
  realPath: string;
  /** Its argv[0]; default realPath. */
  argv0?: string;
  shimDir: string;
  /** The record channel (a FIFO, or a plain file in tests), as seen where the shim runs. */
  logFile: string;
  /** Platform whose base64 flavour to use; default this process's. */
  platform?: NodeJS.Platform;
  /**
   * The bash that runs the shim (its `#!`), by absolute path as seen where the shim runs: the one
   * the harness found at setup, never one on the agent's PATH (which `#!/usr/bin/env bash` would
   * take, and with it the record).
   */
  bash: string;
}

/** Write the shim script `<shimDir>/<name>` and return its path. */
export async function writeShim(options: ShimOptions): Promise<string> {
  // A `#!` line ends at the first blank and names its program by path.
  if (!path.isAbsolute(options.bash) || /\s/.test(options.bash)) {
    throw new InfraError(
      `the shim cannot run by the bash at ${JSON.stringify(options.bash)}: it needs an absolute path without blanks (install bash in /usr/bin or /bin)`,
    );
  }
  const name = path.basename(options.binary);
  await mkdir(options.shimDir, { recursive: true });
  const shimPath = path.join(options.shimDir, name);
  await writeFile(shimPath, renderShimScript({ ...options, binary: name }), { mode: 0o755 });
  await chmod(shimPath, 0o755);
  return shimPath;
}

function renderShimScript(options: ShimOptions): string {
  const maxLine = maxRecordLine(options.platform ?? process.platform);
  const part = maxLine - 100;
  // -p: no BASH_ENV, no functions or SHELLOPTS from the environment in the shim itself (the target
  // still gets them all: bash passes on what it does not import).
  return `#!${options.bash} -p
# Written by llm-tool-test: records each invocation of ${options.binary}, then runs the real one.
__ltt_name=${quoteShell(options.binary)}
__ltt_real=${quoteShell(options.realPath)}
__ltt_argv0=${quoteShell(options.argv0 ?? options.realPath)}
__ltt_log=${quoteShell(options.logFile)}
__ltt_now() {
  if [[ -n \${EPOCHREALTIME:-} ]]; then __ltt_t=\${EPOCHREALTIME//[!0-9]/}
  else printf -v __ltt_t '%(%s)T000000' -1; fi
}
__ltt_now; __ltt_start=$__ltt_t
__ltt_child=
__ltt_trapped=
__ltt_pending=
# A signal that arrives before the child's pid is known (just after the fork, on a loaded machine)
# is kept and forwarded once it is, not lost.
__ltt_forward() {
  __ltt_trapped=1
  if [[ -n $__ltt_child ]]; then kill -s "$1" "$__ltt_child" 2>/dev/null; else __ltt_pending=$1; fi
}
trap '__ltt_forward TERM' TERM
trap '__ltt_forward INT' INT
trap '__ltt_forward HUP' HUP
# In the background so the traps run while it works. <&0 keeps stdin (bash would give it /dev/null);
# trap - restores SIGINT/SIGQUIT, which bash ignores in background jobs (unless ignored on entry).
(
  trap - INT QUIT
  set -- "$__ltt_argv0" "$__ltt_real" "$@"
  # From the broker (shim-broker.ts, which sources this), the agent's environment comes as values
  # in an array (no environment carries one): the target's, never ours.
  if [[ \${__ltt_handed-} == 1 ]]; then
    unset -v PATH PWD OLDPWD SHLVL __ltt_handed
    for __ltt_p in "\${__ltt_env[@]}"; do export -- "$__ltt_p" 2>/dev/null; done
  fi
  exec -a "$1" "$2" "\${@:3}"
) <&0 &
__ltt_child=$!
[[ -n $__ltt_pending ]] && kill -s "$__ltt_pending" "$__ltt_child" 2>/dev/null
__ltt_code=
while :; do
  __ltt_trapped=
  wait "$__ltt_child"
  __ltt_status=$?
  # A re-wait after the child was already collected says 127: keep the status we had.
  if [[ $__ltt_status == 127 && -n $__ltt_code ]]; then break; fi
  __ltt_code=$__ltt_status
  # wait returns early when a trapped signal arrives; the child may still be running.
  [[ -n $__ltt_trapped ]] || break
done
__ltt_now; __ltt_end=$__ltt_t
# Bytes from here on (lengths, escapes); nothing runs after this that would see it.
LC_ALL=C
__ltt_line="v2	$__ltt_start	$__ltt_end	$__ltt_code	$(($# + 1))"
for __ltt_a in "$PWD" "$__ltt_name" "$@"; do
  __ltt_a=\${__ltt_a//%/%25}; __ltt_a=\${__ltt_a//$'\\t'/%09}; __ltt_a=\${__ltt_a//$'\\n'/%0A}
  __ltt_line+="	$__ltt_a"
done
__ltt_line+="	."
{
  if (( \${#__ltt_line} <= ${maxLine} )); then
    printf '%s\\n' "$__ltt_line" >> "$__ltt_log"
  else
    __ltt_count=$(( (\${#__ltt_line} + ${part} - 1) / ${part} ))
    for (( __ltt_i = 0; __ltt_i < __ltt_count; __ltt_i++ )); do
      printf 'v1c\\t%s\\t%s\\t%s\\t%s\\n' "$__ltt_start.$BASHPID" "$__ltt_i" "$__ltt_count" "\${__ltt_line:__ltt_i*${part}:${part}}" >> "$__ltt_log"
    done
  fi
} 2>/dev/null
exit "$__ltt_code"
`;
}

function quoteShell(value: string): string {
  return `'${value.replaceAll("'", `'\\''`)}'`;
}

/**
 * Absolute path of the real target binary: a bare name is looked up on `searchPath` (which must
 * not contain the shim's directory); a path is checked as given (resolved against `cwd`).
 */
export async function resolveRealBinary(binary: string, searchPath: string, cwd?: string): Promise<string> {
  if (binary.includes("/")) {
    const candidate = path.resolve(cwd ?? process.cwd(), binary);
    if (await isExecutableFile(candidate)) return candidate;
    throw new InfraError(
      `target binary "${binary}" was not found or is not executable (${candidate}): install it or fix target.binary`,
    );
  }
  const dirs = searchPath.split(":").filter((dir) => dir.length > 0);
  for (const dir of dirs) {
    const candidate = path.resolve(cwd ?? process.cwd(), dir, binary);
    if (await isExecutableFile(candidate)) return candidate;
  }
  throw new InfraError(
    `target binary "${binary}" was not found on PATH (${searchPath}): install it or fix target.binary`,
  );
}

async function isExecutableFile(file: string): Promise<boolean> {
  try {
    const info = await stat(file);
    if (!info.isFile()) return false;
    await access(file, fsConstants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Invocations in a record file (a shim writing to a plain file), in start order. */
export async function readShimLog(logFile: string): Promise<TargetInvocationRecord[]> {
  // latin1: each byte one character, as the channel reads them.
  return parseShimRecords((await readTextIfExists(logFile)) ?? "");
}

/**
 * The invocations in the shim's record text (its bytes as latin1 characters), in start order: whole lines, and long records
 * reassembled from their parts; torn, incomplete or foreign lines are skipped.
 */
export function parseShimRecords(text: string): TargetInvocationRecord[] {
  const records: { record: TargetInvocationRecord; startUs: bigint }[] = [];
  const parts = new Map<string, { count: number; texts: (string | undefined)[] }>();
  for (const line of text.split("\n")) {
    const part = SHIM_PART.exec(line);
    if (part) {
      const [, key, index, count, piece] = part as unknown as [string, string, string, string, string];
      const entry = parts.get(key) ?? { count: Number(count), texts: [] };
      if (entry.count === Number(count) && Number(index) < entry.count) entry.texts[Number(index)] = piece;
      parts.set(key, entry);
      continue;
    }
    const parsed = parseShimLine(line);
    if (parsed) records.push(parsed);
  }
  for (const { count, texts } of parts.values()) {
    if (texts.length !== count || texts.some((piece) => piece === undefined)) continue;
    const parsed = parseShimLine(texts.join(""));
    if (parsed) records.push(parsed);
  }
  records.sort((a, b) => (a.startUs < b.startUs ? -1 : a.startUs > b.startUs ? 1 : 0));
  return records.map((entry) => entry.record);
}

const SHIM_PART = /^v1c\t(\d+\.\d+)\t(\d+)\t(\d+)\t(.*)$/;
const SHIM_LINE = /^v1\t(\d+)\t(\d+)\t(\d+)\t(\d+)\t([A-Za-z0-9+/=]*)\t([A-Za-z0-9+/=]*)$/;

const SHIM_LINE_V2 = /^v2\t(\d+)\t(\d+)\t(\d+)\t(\d+)\t(.*)$/;

/** A line of the text (bytes read as latin1): v2, or v1 (base64 fields). */
function parseShimLine(line: string): { record: TargetInvocationRecord; startUs: bigint } | null {
  const v2 = SHIM_LINE_V2.exec(line);
  if (v2) {
    const [, start, end, code, argc, rest] = v2 as unknown as [
      string,
      string,
      string,
      string,
      string,
      string,
    ];
    const fields = rest.split("\t");
    // The cwd, the arguments and the end mark: a torn line has fewer, or no mark.
    if (Number(argc) < 1 || fields.length !== Number(argc) + 2 || fields.pop() !== ".") return null;
    const [cwd, ...argv] = fields.map(unescapeField) as [string, ...string[]];
    return shimRecord(start, end, code, argv, cwd);
  }
  const match = SHIM_LINE.exec(line);
  if (!match) return null;
  const [, start, end, code, argc, cwd, args] = match as unknown as [
    string,
    string,
    string,
    string,
    string,
    string,
    string,
  ];
  const count = Number(argc);
  const parts = splitNulTerminated(Buffer.from(args, "base64"));
  // A torn line decodes to fewer arguments than announced.
  if (count < 1 || parts.length !== count) return null;
  return shimRecord(start, end, code, parts, Buffer.from(cwd, "base64").toString("utf8"));
}

function shimRecord(
  start: string,
  end: string,
  code: string,
  argv: string[],
  cwd: string,
): { record: TargetInvocationRecord; startUs: bigint } {
  const startUs = BigInt(start);
  const endUs = BigInt(end);
  return {
    startUs,
    record: {
      argv,
      exit_code: Number(code),
      duration_ms: Number(endUs - startUs) / 1000,
      cwd: cwd.length > 0 ? cwd : null,
      started_at_ms: Number(startUs / 1000n),
    },
  };
}

/** A v2 field: its bytes (latin1 characters) with `%XX` decoded, as UTF-8. */
function unescapeField(field: string): string {
  const bytes = field.replace(/%([0-9A-F]{2})/g, (_, hex: string) =>
    String.fromCharCode(Number.parseInt(hex, 16)),
  );
  return Buffer.from(bytes, "latin1").toString("utf8");
}

function splitNulTerminated(buffer: Buffer): string[] {
  const parts: string[] = [];
  let start = 0;
  for (let index = 0; index < buffer.length; index += 1) {
    if (buffer[index] === 0) {
      parts.push(buffer.subarray(start, index).toString("utf8"));
      start = index + 1;
    }
  }
  return parts;
}

async function readTextIfExists(file: string): Promise<string | null> {
  try {
    return await readFile(file, "latin1");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
}
