/**
 * In bwrap, the real target binary is not in the agent's sandbox at all: every path of it there is
 * a *requester*, a small script that asks the harness to run the target and relays its input,
 * output and exit status. The harness runs each request in a sandbox of its own next to the
 * agent's (the same root, work dir and /tmp, the scenario's network) where the real binary is
 * bound, through the recording shim (shim.ts). So however the agent calls the target (its path, a
 * changed PATH, a clean environment, a script, a path read from the requester or the mount table),
 * the binary runs only through the harness and every run is recorded: an agent that runs as the
 * shim's own user and reads whatever the shim reads finds nothing to run around it, because the
 * bytes of the binary are not there. A request the agent forges runs the target all the same, and
 * is recorded all the same.
 *
 * What remains: a target that can be asked to copy files (a recorded call) can copy its own binary
 * out of its sandbox into the work dir, and that copy runs unrecorded; and the target does not
 * share the agent's pid namespace (it cannot see the agent's processes) nor its terminal.
 *
 * A request is a folder in the sandbox's /tmp holding FIFOs (`in`, `out`, `err`, `status`) and the
 * call (`argv`, `env`: NUL-separated; `cwd`), named by one line `c1 <folder>` written to the call
 * channel (a FIFO the harness reads, bound read-only like the record channel); `k1 <folder> <signal>`
 * asks for the run to be signalled (the requester forwards TERM, INT and HUP). Nothing the agent
 * writes in the folder can run anything but the shim: the broker takes the arguments as arguments,
 * only NAME=value pairs from `env`, and the folder's name only when it has the requester's shape.
 */
import { chmodSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import { makeFifos, openFifo } from "./fifos.js";

/** The call channel's name in the shim's log folder. */
export const CALLS_FIFO = "calls";
/** Requests in flight at once per trial; more wait in their requester until its command ends. */
export const MAX_CALLS_IN_FLIGHT = 64;
const CALL_DIR = /^\/tmp\/\.ltt-call\.[A-Za-z0-9]{6,32}$/;
const SIGNALS = new Set(["TERM", "INT", "HUP"]);

export type BrokerRequest = { kind: "call"; dir: string } | { kind: "signal"; dir: string; signal: string };

/** The request on one line of the call channel, or null when it is not one. */
export function parseBrokerRequest(line: string): BrokerRequest | null {
  const [kind, dir, signal, ...rest] = line.split("\t");
  if (rest.length > 0 || dir === undefined || !CALL_DIR.test(dir)) return null;
  if (kind === "c1" && signal === undefined) return { kind: "call", dir };
  if (kind === "k1" && signal !== undefined && SIGNALS.has(signal)) return { kind: "signal", dir, signal };
  return null;
}

/**
 * The requester the agent finds at every path of the target. `callsFile` is the call channel as
 * seen inside. It runs with whatever PATH the agent gave it (even none): its own commands are
 * found on the system folders, and the environment it passes on is the agent's.
 */
export function renderRequesterScript(name: string, callsFile: string, bash: string): string {
  return `#!${bash}
# Written by llm-tool-test: ${name} runs outside this sandbox, recorded; this asks for it and relays.
__ltt_calls=${quoteShell(callsFile)}
__ltt_had_path=\${PATH+1}
__ltt_path=\${PATH-}
PATH=/usr/local/bin:/usr/bin:/bin
__ltt_dir=$(mktemp -d /tmp/.ltt-call.XXXXXXXXXX) || exit 126
mkfifo -m 600 "$__ltt_dir/in" "$__ltt_dir/out" "$__ltt_dir/err" "$__ltt_dir/status" || exit 126
# printf repeats its format at least once: with no arguments it would write one empty one.
if (($#)); then printf '%s\\0' "$@" > "$__ltt_dir/argv"; else : > "$__ltt_dir/argv"; fi
if [[ -n $__ltt_had_path ]]; then PATH=$__ltt_path "$(command -v env)" -0 > "$__ltt_dir/env"
else (unset PATH; "$(PATH=/usr/bin:/bin command -v env)" -0) > "$__ltt_dir/env"; fi
printf '%s' "$PWD" > "$__ltt_dir/cwd"
__ltt_forward() { printf 'k1\\t%s\\t%s\\n' "$__ltt_dir" "$1" >> "$__ltt_calls"; }
trap '__ltt_forward TERM' TERM
trap '__ltt_forward INT' INT
trap '__ltt_forward HUP' HUP
printf 'c1\\t%s\\n' "$__ltt_dir" >> "$__ltt_calls"
cat <&0 > "$__ltt_dir/in" 2>/dev/null &
__ltt_in=$!
cat "$__ltt_dir/err" >&2 &
__ltt_err=$!
cat "$__ltt_dir/out" &
__ltt_out=$!
# wait returns early when a trapped signal arrives: wait again until the output is done.
while kill -0 "$__ltt_out" 2>/dev/null; do wait "$__ltt_out"; done
while kill -0 "$__ltt_err" 2>/dev/null; do wait "$__ltt_err"; done
__ltt_status=
while [[ -z $__ltt_status ]]; do read -r __ltt_status < "$__ltt_dir/status" || break; done
kill "$__ltt_in" 2>/dev/null
rm -rf "$__ltt_dir"
exit "\${__ltt_status:-126}"
`;
}

/**
 * Run by bash in the broker's sandbox: `$1` the request's folder, `$2` the recording shim. Runs
 * the shim with the call's arguments, its NAME=value pairs as the whole environment, its folder as
 * cwd and the FIFOs as stdio, then hands the status to the requester (waiting for it to read) and
 * says so on stdout (else the harness hands one over: STATUS_WRITER_SCRIPT). A file of the folder
 * that is not the folder's own once opened (a link, or the folder itself a link) ends it first.
 */
export const BROKER_SCRIPT = [
  "dir=$1; shim=$2; pairs=(); args=()",
  // The harness's stdout, for STATUS-GIVEN; the shim does not inherit it.
  "exec 5>&1",
  // Each file is checked once open to be the folder's own (no link to the real binary: its bytes
  // must not reach the agent through a redirection).
  'opened() { [[ $(readlink "/proc/$$/fd/$1") == "$dir/$2" ]]; }',
  'exec 3< "$dir/argv" 4< "$dir/env" 6< "$dir/cwd" && opened 3 argv && opened 4 env && opened 6 cwd || exit 1',
  'while IFS= read -r -d "" arg; do args+=("$arg"); done <&3',
  'while IFS= read -r -d "" pair; do [[ $pair =~ ^[A-Za-z_][A-Za-z0-9_]*= ]] && pairs+=("$pair"); done <&4',
  "IFS= read -r -d '' cwd <&6; exec 3<&- 4<&- 6<&-",
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell parameter expansion.
  'cd -- "${cwd:-/}" 2>/dev/null || cd /',
  'exec 0< "$dir/in" 1> "$dir/out" 2> "$dir/err" && opened 0 in && opened 1 out && opened 2 err || exit 1',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: shell array expansions.
  'env -i "${pairs[@]}" "$shim" "${args[@]}" 5>&-',
  // The relays end only once nothing here holds the FIFOs.
  "status=$?; exec 0</dev/null 1>/dev/null 2>/dev/null",
  'exec 3> "$dir/status" && opened 3 status && printf "%s\\n" "$status" >&3 && echo STATUS-GIVEN >&5',
].join("\n");

/** What the broker prints once the requester has the status. */
export const STATUS_GIVEN = "STATUS-GIVEN";

/**
 * Run by bash in a sandbox like the agent's when a broker run ended without giving a status (it
 * could not start, or it was killed): `$1` the folder, `$2` the status. Ends the requester's
 * relays (each FIFO opened both ways never blocks) and gives it the status.
 */
export const STATUS_WRITER_SCRIPT = [
  "dir=$1",
  'exec 4<> "$dir/out" 5<> "$dir/err" 6<> "$dir/in"; exec 4>&- 5>&- 6>&-',
  'exec 3> "$dir/status" && printf "%s\\n" "$2" >&3',
].join("\n");

export interface CallChannel {
  close(): void;
}

/**
 * Makes `<dir>/calls` (a FIFO, write-only once open) and calls `onRequest` for each request line
 * written to it. Lines beyond a bounded length are dropped.
 */
export async function openCallChannel(
  dir: string,
  searchPath: string,
  onRequest: (request: BrokerRequest) => void,
): Promise<CallChannel> {
  const file = path.join(dir, CALLS_FIFO);
  await makeFifos([file], {
    mode: "0622",
    cwd: dir,
    searchPath,
    what: `the shim broker's call channel ${file}`,
  });
  const fd = openFifo(file);
  chmodSync(file, 0o222);
  let pending = "";
  const socket = new net.Socket({ fd, readable: true, writable: false });
  socket.setEncoding("latin1");
  socket.on("data", (chunk: string) => {
    pending += chunk;
    let newline = pending.indexOf("\n");
    while (newline !== -1) {
      const request = parseBrokerRequest(pending.slice(0, newline));
      pending = pending.slice(newline + 1);
      if (request) onRequest(request);
      newline = pending.indexOf("\n");
    }
    // A line no request is this long: a flood.
    if (pending.length > 4096) pending = "";
  });
  socket.on("error", () => undefined);
  return { close: () => socket.destroy() };
}

function quoteShell(value: string): string {
  return `'${value.replaceAll("'", `'\\''`)}'`;
}
