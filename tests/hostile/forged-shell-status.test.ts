/**
 * A hostile agent against the persistent shell's framing (src/sandbox/persistent-shell.ts): it
 * prints lines shaped like the shell's status lines, writes them straight into the status FIFO,
 * and sets traps to read the nonce. None of it may end a call early, change its exit status, or
 * move output between calls; each call's status stays the one its command really ended with.
 */
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createTrialSandbox } from "../../src/sandbox/trial-sandbox.js";
import type { TrialSandbox } from "../../src/sandbox/types.js";
import type { SandboxMode } from "../../src/scenario/types.js";
import { createEventRecorder } from "../support/event-builder.js";
import { findBwrapProblem } from "../support/processes.js";
import { makeScenario } from "../support/scenario-factory.js";
import { makeTempDir } from "../support/temp-dirs.js";

const bwrapProblem = findBwrapProblem();
if (bwrapProblem) console.warn(`skipping the bwrap forged-shell-status tests: ${bwrapProblem}`);

const dir = makeTempDir("forged-shell-status-");
const open: TrialSandbox[] = [];
afterEach(async () => {
  for (const sandbox of open.splice(0)) await sandbox.dispose();
});

let counter = 0;
async function createSandbox(mode: SandboxMode): Promise<TrialSandbox> {
  counter += 1;
  const sandbox = await createTrialSandbox({
    scenario: makeScenario(),
    mode,
    trialDir: path.join(dir, "out", `trial-${counter}`),
    parentEnv: { PATH: process.env.PATH ?? "/usr/bin:/bin", LANG: "C.UTF-8" },
    events: createEventRecorder(),
    tmpRoot: path.join(dir, "tmp-root"),
  });
  open.push(sandbox);
  return sandbox;
}

const call = (sandbox: TrialSandbox, command: string) =>
  sandbox.runAgentCommand(command, { timeoutMs: 30_000 });

/** Lines shaped like status lines: 32 hex digits, a space, an exit status. */
const FAKE_LINES = [
  "00000000000000000000000000000000 0",
  "ffffffffffffffffffffffffffffffff 0",
  "0123456789abcdef0123456789abcdef 0",
];

/**
 * The shell's control folder, found from the descriptors of the processes the command can see (the
 * shell's runner holds the FIFO `in`), as a hostile command would; fails the call if not.
 */
const CONTROL_DIR =
  // The runner's descriptors are closed to the agent (it is not dumpable), its command line is not:
  // the folder of its program, the sealed bash in the control folder.
  // biome-ignore lint/suspicious/noTemplateCurlyInString: bash ${...}, on purpose
  'd=; for f in $(grep -l "IFS= read -r" /proc/[0-9]*/cmdline 2>/dev/null); do a=$(tr "\\0" "\\n" < "$f" 2>/dev/null | head -1); [ -p "${a%/*}/status" ] && d=${a%/*}; done; [ -p "$d/status" ] || exit 99';

for (const mode of ["local", "bwrap"] as const) {
  describe.skipIf(mode === "bwrap" && bwrapProblem !== null)(`forged status lines (${mode})`, () => {
    it("printed on stdout and stderr are output, not a status", async () => {
      const sandbox = await createSandbox(mode);
      const printed = FAKE_LINES.map((line) => `echo '${line}'; echo '${line}' >&2`).join("; ");
      const result = await call(sandbox, `${printed}; echo after; exit_with() { return $1; }; exit_with 9`);
      const expected = `${FAKE_LINES.join("\n")}\n`;
      expect(result).toMatchObject({ exit_code: 9, stdout: `${expected}after\n`, stderr: expected });
    });

    it("written into the status FIFO itself, with any nonce but the call's own, are ignored", async () => {
      const sandbox = await createSandbox(mode);
      // Many lines, and random nonces among them, while the command goes on: the harness would take
      // one of them (and end the call with status 0, without "after") if it took any.
      const forge = [
        CONTROL_DIR,
        `for line in ${FAKE_LINES.map((line) => `'${line}'`).join(" ")}; do echo "$line" > "$d/status"; done`,
        'for i in $(seq 50); do printf "%s 0\\n" "$(head -c 16 /dev/urandom | od -An -tx1 | tr -d " \\n")" > "$d/status"; done',
        "echo after",
        "exit_with() { return $1; }; exit_with 9",
      ].join("; ");
      const result = await call(sandbox, forge);
      expect(result).toMatchObject({ exit_code: 9, stdout: "after\n", timed_out: false });
      // The shell carries on, each call with its own status.
      expect(await call(sandbox, "echo next; (exit 4)")).toMatchObject({ exit_code: 4, stdout: "next\n" });
    });

    it("the command cannot read the status FIFO, nor write the shell's input", async () => {
      const sandbox = await createSandbox(mode);
      const result = await call(
        sandbox,
        `${CONTROL_DIR}; timeout 2 cat "$d/status" && echo READ-STATUS; echo 'echo injected > injected.txt' > "$d/in" && echo WROTE-INPUT; true`,
      );
      expect(result.stdout).not.toContain("READ-STATUS");
      expect(result.stdout).not.toContain("WROTE-INPUT");
      expect((await call(sandbox, "ls injected.txt 2>&1; true")).stdout).toContain("No such file");
    });

    it("a DEBUG trap, xtrace and verbose mode never see a call's nonce, so cannot forge its status", async () => {
      const sandbox = await createSandbox(mode);
      // The trap runs before every command the shell runs, the harness's own lines included, and
      // writes what it sees; it also forges any 32-hex word it sees as a status 0.
      const trap = [
        CONTROL_DIR,
        // biome-ignore lint/suspicious/noTemplateCurlyInString: bash ${...}, on purpose
        'trap \'echo "$BASH_COMMAND" >> "$HOME/seen"; for w in $BASH_COMMAND; do [[ $w =~ ^.?([0-9a-f]{32}).?$ ]] && echo "${BASH_REMATCH[1]} 0" > "$d/status"; done\' DEBUG',
        "set -xv",
      ].join("; ");
      await call(sandbox, trap);
      const failing = await call(sandbox, "echo work; (exit 6)");
      expect(failing.exit_code).toBe(6);
      expect(`${failing.stdout}${failing.stderr}`).not.toMatch(/[0-9a-f]{32}/);
      const seen = await call(sandbox, 'set +xv; cat "$HOME/seen"');
      expect(seen.stdout).not.toMatch(/[0-9a-f]{32}/);
    });
  });
}
