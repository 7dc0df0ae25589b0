/**
 * In bwrap, the real target binary is not in the agent's sandbox at all: every path of it there is
 * a *requester*, a small script that asks the harness to run the target and relays its input,
 * output and exit status. The harness hands each request to the trial's broker server, which
 * runs in one sandbox of its own next to the agent's for the trial's whole life (the same root,
 * work dir and /tmp, the scenario's network) where the real binary is bound, and forks each call
 * there, through the recording shim (shim.ts). So however the agent calls the target (its path, a
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
 * asks for the run to be signalled (the requester forwards TERM, INT and HUP; the call forwards it
 * to the shim, which forwards it to the target). Nothing the agent
 * writes in the folder can run anything but the shim: the broker takes the arguments as arguments,
 * only NAME=value pairs from `env`, and the folder's name only when it has the requester's shape.
 */
import { chmodSync, readSync } from "node:fs";
import { mkdir, rm } from "node:fs/promises";
import net from "node:net";
import path from "node:path";
import { makeFifos, openFifo } from "./fifos.js";
import type { ExecResult } from "./types.js";

/** Where Debian and Ubuntu's bash-builtins package puts bash's loadable builtins. */
export const LOADABLES_DIR = "/usr/lib/bash";
/** The call channel's name in the shim's log folder. */
export const CALLS_FIFO = "calls";
/** Requests in flight at once per trial; more wait in their requester until its command ends. */
const MAX_CALLS_IN_FLIGHT = 64;
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
 * builtins (loaded from `loadablesDir` where there) or found on the system folders, and the
 * environment it passes on is the agent's.
 */
export function renderRequesterScript(
  name: string,
  callsFile: string,
  bash: string,
  loadablesDir = LOADABLES_DIR,
): string {
  return `#!${bash}
# Written by llm-tool-test: ${name} runs outside this sandbox, recorded; this asks for it and relays.
__ltt_calls=${quoteShell(callsFile)}
__ltt_path=\${PATH-}
PATH=/usr/local/bin:/usr/bin:/bin
# Builtins from Debian's bash-builtins where installed (no process start); else the system's commands.
for __ltt_b in mkfifo rm tee; do enable -f ${quoteShell(loadablesDir)}/$__ltt_b $__ltt_b 2>/dev/null; done
# The builtin mktemp sets a variable (no command substitution: no fork); it prints the name too.
if enable -f ${quoteShell(loadablesDir)}/mktemp mktemp 2>/dev/null; then mktemp -d -v __ltt_dir /tmp/.ltt-call.XXXXXXXXXX > /dev/null || exit 126
else __ltt_dir=$(mktemp -d /tmp/.ltt-call.XXXXXXXXXX) || exit 126; fi
mkfifo -m 600 "$__ltt_dir/in" "$__ltt_dir/out" "$__ltt_dir/err" "$__ltt_dir/status" || exit 126
# printf repeats its format at least once: with no arguments it would write one empty one.
if (($#)); then printf '%s\\0' "$@" > "$__ltt_dir/argv"; else : > "$__ltt_dir/argv"; fi
# The exported names, by builtins (through the file, not a pipe: no fork); PATH as the agent had it.
compgen -e > "$__ltt_dir/env"
mapfile -t __ltt_names < "$__ltt_dir/env"
for __ltt_name in "\${__ltt_names[@]}"; do
  if [[ $__ltt_name == PATH ]]; then printf 'PATH=%s\\0' "$__ltt_path"; else printf '%s=%s\\0' "$__ltt_name" "\${!__ltt_name}"; fi
done > "$__ltt_dir/env"
printf '%s' "$PWD" > "$__ltt_dir/cwd"
__ltt_forward() { printf 'k1\\t%s\\t%s\\n' "$__ltt_dir" "$1" >> "$__ltt_calls"; }
trap '__ltt_forward TERM' TERM
trap '__ltt_forward INT' INT
trap '__ltt_forward HUP' HUP
printf 'c1\\t%s\\n' "$__ltt_dir" >> "$__ltt_calls"
# The relays: tee without files copies its input to its output, as cat would.
tee < "$__ltt_dir/err" >&2 &
__ltt_err=$!
tee < "$__ltt_dir/out" &
__ltt_out=$!
# Input from /dev/null (an agent's command's) needs no relay: opening \`in\` and closing it ends the
# target's input. (A signal meanwhile is forwarded once the server has opened it.)
__ltt_in=
if [[ /dev/stdin -ef /dev/null ]]; then : > "$__ltt_dir/in"
else tee <&0 > "$__ltt_dir/in" 2>/dev/null & __ltt_in=$!; fi
# wait returns early when a trapped signal arrives: wait again until the output is done.
while kill -0 "$__ltt_out" 2>/dev/null; do wait "$__ltt_out"; done
while kill -0 "$__ltt_err" 2>/dev/null; do wait "$__ltt_err"; done
__ltt_status=
while [[ -z $__ltt_status ]]; do read -r __ltt_status < "$__ltt_dir/status" || break; done
[[ -z $__ltt_in ]] || kill "$__ltt_in" 2>/dev/null
rm -rf "$__ltt_dir"
exit "\${__ltt_status:-126}"
`;
}

/**
 * The broker's server, run by bash (the harness's code, never the agent's) for the trial's whole
 * life in the broker's sandbox: `$1` its control folder (FIFOs `in`, from the harness, and `out`,
 * to it), `$2` the recording shim. For each `c1 <id> <folder>` line it forks a child that runs the
 * call; `k1 <id> - <signal>` signals that child, which forwards it to the shim (which forwards it
 * to the real binary); `d1 <id>` forgets a finished call. A call's child reports `<id> 1` once the
 * requester has the status, `<id> 0` when it gave none (the harness then gives one:
 * STATUS_WRITER_SCRIPT).
 *
 * A call's child runs the shim with the call's arguments, its folder's cwd and the FIFOs as stdio:
 * a fork of its own that sources the shim (no exec: nothing but the target is started). The server
 * exports nothing (it un-exports its own environment first), so the call's NAME=value pairs are the
 * target's whole environment, but never the shim's: the agent's BASH_ENV, LD_PRELOAD or PATH would
 * run its own code in the bash that records the call. The shim gets them as values (the array
 * `__ltt_env`, with the server's own names unset) and exports them only in the child that becomes
 * the target. Each file of the folder is checked once open to be the folder's own: neither it nor
 * the folder a link, and the file at its path the one opened (no link to the real binary: its bytes
 * must not reach the agent through a redirection). The checks are builtins: a call forks only the
 * shim, which forks the target.
 */
export const BROKER_SERVER_SCRIPT = [
  'exec <"$1/in" 4>"$1/out" >/dev/null 2>&1 || exit 126',
  // Nothing of the server's environment reaches a target (its own, PATH included, is the call's).
  'for name in $(compgen -e); do export -n "$name"; done',
  "shim=$2; declare -A pids",
  // Ignored here, so a call's child cannot die of one before its traps are set (it sets them first).
  "trap '' TERM INT HUP",
  "own() { [[ ! -L $dir && ! -L $dir/$2 && $dir/$2 -ef /proc/$BASHPID/fd/$1 ]]; }",
  "call() {",
  "  trap 'forward TERM' TERM; trap 'forward INT' INT; trap 'forward HUP' HUP",
  "  local id=$1 dir=$2 child= pending= trapped= code= status given=0 arg pair cwd args=() pairs=()",
  // As the shim: a signal that comes before the shim's pid is known is forwarded once it is.
  '  forward() { trapped=1; if [[ -n $child ]]; then kill -s "$1" "$child" 2>/dev/null; else pending=$1; fi; }',
  '  if exec 3< "$dir/argv" 5< "$dir/env" 6< "$dir/cwd" && own 3 argv && own 5 env && own 6 cwd; then',
  '    while IFS= read -r -d "" arg; do args+=("$arg"); done <&3',
  // Handed over as the array __ltt_env (the shim's own environment is empty); names of ours are dropped.
  '    while IFS= read -r -d "" pair; do [[ $pair =~ ^[A-Za-z_][A-Za-z0-9_]*= && $pair != __ltt_* ]] && pairs+=("$pair"); done <&5',
  "    IFS= read -r -d '' cwd <&6; exec 3<&- 5<&- 6<&-",
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell parameter expansion.
  '    cd -- "${cwd:-/}" 2>/dev/null || cd /',
  '    if exec 0< "$dir/in" 1> "$dir/out" 2> "$dir/err" && own 0 in && own 1 out && own 2 err; then',
  // <&0: an asynchronous command's stdin would be /dev/null; trap -: it would ignore INT and QUIT.
  // The shim is sourced by this bash (the harness's), not run by the first `bash` on the agent's
  // PATH (its shebang); the server's names are unset first, so a pair named like one is the target's.
  // biome-ignore lint/suspicious/noTemplateCurlyInString: shell array expansions.
  '      ( trap - INT QUIT; __ltt_handed=1 __ltt_env=("${pairs[@]}") __ltt_shim=$shim; set -- "${args[@]}"',
  "        unset -v name shim pids id dir child pending trapped code status given arg pair cwd args pairs",
  '        unset -f own call forward; . "$__ltt_shim" ) <&0 4>&- &',
  "      child=$!",
  '      [[ -n $pending ]] && kill -s "$pending" "$child" 2>/dev/null',
  // wait returns early when a trapped signal arrives: wait again until the shim is gone.
  '      while :; do trapped=; wait "$child"; status=$?',
  "        [[ $status == 127 && -n $code ]] && break; code=$status; [[ -n $trapped ]] || break; done",
  // The requester's relays end only once nothing here holds the FIFOs.
  "      exec 0</dev/null 1>/dev/null 2>/dev/null",
  '      exec 3> "$dir/status" && own 3 status && printf "%s\n" "$code" >&3 && given=1',
  "    fi",
  "  fi",
  '  printf "%s %s\n" "$id" "$given" >&4',
  "}",
  // The harness's first line: the server is up, with its FIFOs open.
  "echo ready >&4",
  "while IFS=$'\t' read -r kind id dir signal; do",
  "  [[ $id =~ ^[0-9]{1,15}$ ]] || continue",
  "  case $kind in",
  '    c1) [[ $dir =~ ^/tmp/.ltt-call.[A-Za-z0-9]{6,32}$ ]] && { call "$id" "$dir" & pids[$id]=$!; } ;;',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell parameter expansion.
  '    k1) [[ $signal =~ ^(TERM|INT|HUP)$ && -n ${pids[$id]-} ]] && kill -s "$signal" "${pids[$id]}" ;;',
  '    d1) unset "pids[$id]" ;;',
  "  esac",
  "done",
].join("\n");

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

interface CallChannel {
  close(): void;
}

/**
 * Makes `<dir>/calls` (a FIFO, write-only once open) and calls `onRequest` for each request line
 * written to it. Lines beyond a bounded length are dropped.
 */
async function openCallChannel(
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

/** The status a requester gets when its call could not run. */
const NOT_RUN_STATUS = 126;
/** The status a signalled call gets when it ended without giving one: 128 + the signal's number. */
const SIGNAL_STATUS: Record<string, number> = { HUP: 129, INT: 130, TERM: 143 };
/** Bytes of an unfinished line kept from the server's reports (junk stays small). */
const MAX_REPORT_LINE = 64;

export interface ShimBrokerOptions {
  /** The shim's log folder, where the call channel is made. */
  logDir: string;
  /** Host folder under which each server's control folder is made (the trial's temp dir). */
  baseDir: string;
  /** Where mkfifo is looked up. */
  searchPath: string;
  /**
   * Starts the server (BROKER_SERVER_SCRIPT, given the control folder `controlDir` as seen inside
   * and the shim) in the broker's sandbox; settles when it is gone, `signal` ends it and its sandbox.
   */
  startServer(controlDir: string, signal: AbortSignal): Promise<ExecResult>;
  /** Run before each call is handed to the server (bwrap: the root's system links made again). */
  beforeCall?(): Promise<void>;
  /** Gives the requester of the folder `dir` the status `status`: a call that ended without one. */
  giveStatus(dir: string, status: number): Promise<void>;
}

export interface ShimBroker {
  /** Ends the server, and every call in flight with it. */
  close(): Promise<void>;
}

interface BrokerServer {
  /** True once the server is gone: the next call starts another. */
  readonly gone: boolean;
  send(line: string): void;
  stop(): Promise<void>;
}

interface CallInFlight {
  id: number;
  dir: string;
  server: BrokerServer | null;
  signal: string | null;
}

/**
 * Listens on the call channel and hands each request to the trial's broker server, started with
 * the first call and again after it is gone; a call that ended without giving its requester a
 * status (its files were not its own, or the server went) gets one through `giveStatus`.
 */
export async function openShimBroker(options: ShimBrokerOptions): Promise<ShimBroker> {
  const inFlight = new Map<string, CallInFlight>();
  const byId = new Map<number, CallInFlight>();
  let closed = false;
  let lastId = 0;
  let servers = 0;
  let current: BrokerServer | null = null;
  let starting: Promise<BrokerServer> | null = null;

  const finish = (id: number, given: boolean) => {
    const call = byId.get(id);
    if (!call) return;
    byId.delete(id);
    inFlight.delete(call.dir);
    call.server?.send(`d1\t${id}\n`);
    if (given || closed) return;
    const status = call.signal ? (SIGNAL_STATUS[call.signal] ?? NOT_RUN_STATUS) : NOT_RUN_STATUS;
    void options.giveStatus(call.dir, status).catch(() => undefined);
  };
  const serverGone = (server: BrokerServer) => {
    for (const call of [...byId.values()]) if (call.server === server) finish(call.id, false);
  };
  const ensureServer = (): Promise<BrokerServer> => {
    if (current && !current.gone) return Promise.resolve(current);
    servers += starting ? 0 : 1;
    starting ??= startBrokerServer(options, servers, finish, serverGone).then(
      (server) => {
        current = server;
        starting = null;
        return server;
      },
      (error: unknown) => {
        starting = null;
        throw error;
      },
    );
    return starting;
  };
  const handOver = async (call: CallInFlight) => {
    try {
      await options.beforeCall?.();
      const server = await ensureServer();
      if (closed || server.gone) throw new Error("the broker server is gone");
      call.server = server;
      server.send(`c1\t${call.id}\t${call.dir}\n`);
      // Asked for before it was handed over.
      if (call.signal) server.send(`k1\t${call.id}\t-\t${call.signal}\n`);
    } catch {
      finish(call.id, false);
    }
  };

  const channel = await openCallChannel(options.logDir, options.searchPath, (request) => {
    if (closed) return;
    const known = inFlight.get(request.dir);
    if (request.kind === "signal") {
      if (!known) return;
      known.signal = request.signal;
      known.server?.send(`k1\t${known.id}\t-\t${request.signal}\n`);
      return;
    }
    if (known || inFlight.size >= MAX_CALLS_IN_FLIGHT) return;
    lastId += 1;
    const call: CallInFlight = { id: lastId, dir: request.dir, server: null, signal: null };
    inFlight.set(call.dir, call);
    byId.set(call.id, call);
    void handOver(call);
  });
  return {
    async close() {
      closed = true;
      channel.close();
      const server = current ?? (await starting?.catch(() => null)) ?? null;
      await server?.stop();
    },
  };
}

/**
 * One server: its control folder `broker-<index>` under the base folder, with its FIFOs. Lines
 * sent before it is up wait until it is (and its FIFOs are closed to everyone else).
 */
async function startBrokerServer(
  options: ShimBrokerOptions,
  index: number,
  onReport: (id: number, given: boolean) => void,
  onGone: (server: BrokerServer) => void,
): Promise<BrokerServer> {
  const dir = path.join(options.baseDir, `broker-${index}`);
  await mkdir(dir, { mode: 0o755 });
  const files = { in: path.join(dir, "in"), out: path.join(dir, "out") };
  await makeFifos([files.in, files.out], {
    mode: "0600",
    cwd: dir,
    searchPath: options.searchPath,
    what: `the shim broker's FIFOs in ${dir}`,
  });
  const input = new net.Socket({ fd: openFifo(files.in), readable: false, writable: true });
  input.on("error", () => undefined);
  const outFd = openFifo(files.out);
  const output = new net.Socket({ fd: outFd, readable: true, writable: false });
  output.setEncoding("latin1");
  output.on("error", () => undefined);
  let ready = false;
  let gone = false;
  const queued: string[] = [];
  let pending = "";
  const take = (chunk: string) => {
    pending += chunk;
    let newline = pending.indexOf("\n");
    while (newline !== -1) {
      const line = pending.slice(0, newline);
      pending = pending.slice(newline + 1);
      newline = pending.indexOf("\n");
      const report = /^([0-9]{1,15}) ([01])$/.exec(line);
      if (report) onReport(Number(report[1]), report[2] === "1");
      else if (line === "ready" && !ready) {
        ready = true;
        // Once the server holds them, nobody else may open them: not by their paths, nor
        // through /proc/<server>/fd (the same FIFO, modes checked).
        chmodSync(files.in, 0o000);
        chmodSync(files.out, 0o000);
        for (const line of queued.splice(0)) input.write(line);
      }
    }
    if (pending.length > MAX_REPORT_LINE) pending = "";
  };
  output.on("data", take);
  /** Whatever the server's calls reported just before it went. */
  const drain = () => {
    const buffer = Buffer.alloc(4096);
    for (;;) {
      let count = 0;
      try {
        count = readSync(outFd, buffer);
      } catch {
        return; // EAGAIN: empty
      }
      if (count <= 0) return;
      take(buffer.subarray(0, count).toString("latin1"));
    }
  };
  const kill = new AbortController();
  const server: BrokerServer = {
    get gone() {
      return gone;
    },
    send(line) {
      if (gone) return;
      if (ready) input.write(line);
      else queued.push(line);
    },
    async stop() {
      kill.abort();
      await exited;
    },
  };
  const exited = options
    .startServer(dir, kill.signal)
    .catch(() => undefined)
    .then(async () => {
      drain();
      gone = true;
      input.destroy();
      output.destroy();
      onGone(server);
      await rm(dir, { recursive: true, force: true }).catch(() => undefined);
    });
  return server;
}

function quoteShell(value: string): string {
  return `'${value.replaceAll("'", `'\\''`)}'`;
}
