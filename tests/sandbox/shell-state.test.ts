/**
 * The persistent shell's state, saved by one call's bash and given back to the next (real bash,
 * as the runner starts it: `env -i`, the functions in the environment, the prelude as BASH_ENV).
 * A state record is the agent's to write, so a forged one must give back data only: never a
 * command run before the next call's, nor a change to its status.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  functionEnvironment,
  parseShellState,
  renderPrelude,
  type ShellState,
} from "../../src/sandbox/shell-state.js";
import { makeTempDir } from "../support/temp-dirs.js";

/** Runs `command` in a bash given `state`, as a call of the shell; returns its result and the state it saved. */
function runCall(dir: string, state: ShellState | null, command: string) {
  const stateFile = path.join(dir, "state.out");
  const prelude = path.join(dir, "prelude");
  writeFileSync(stateFile, "");
  writeFileSync(prelude, renderPrelude(state, stateFile, { forked: false }));
  const result = spawnSync(
    "env",
    [
      "-i",
      ...functionEnvironment(state),
      `BASH_ENV=${prelude}`,
      "PATH=/usr/bin:/bin",
      "bash",
      "--noprofile",
      "--norc",
      "-c",
      command,
      "bash",
    ],
    { cwd: dir, encoding: "utf8" },
  );
  return {
    status: result.status,
    stdout: result.stdout,
    stderr: result.stderr,
    saved: parseShellState(readFileSync(stateFile, "latin1")),
  };
}

/** A state record as the save function writes it (NUL-separated fields). */
function record(...fields: string[]): string {
  return `${["LTT-STATE-2", ...fields, "LTT-END"].join("\0")}\0`;
}

describe("the shell's state between calls", () => {
  it("keeps cwd, variables of every kind, functions, aliases and options through real bash", () => {
    const dir = makeTempDir("ltt-shell-state-");
    const first = runCall(
      dir,
      null,
      [
        "mkdir -p sub && cd sub",
        "plain=$'two\\nlines \\'quoted\\' $HOME `x`'; export EXPORTED=yes; declare -i count=41",
        "list=(a 'b c'); declare -A map=([k]=v ['odd key']='$(nope)')",
        'greet() { echo "hi $1"; }; cd() { builtin cd "$@" && echo moved; }; export -f greet',
        "alias ll='echo aliased'; set -o pipefail; shopt -s nullglob",
        "(exit 3)",
      ].join("\n"),
    );
    expect(first).toMatchObject({ status: 3, stderr: "" });
    expect(first.saved?.cwd).toBe(path.join(dir, "sub"));
    const second = runCall(
      dir,
      first.saved,
      [
        // biome-ignore lint/suspicious/noTemplateCurlyInString: bash ${...}, on purpose
        'pwd; printf "%s|" "$plain" "$EXPORTED" "$((count + 1))" "${list[1]}" "${map[odd key]}"; echo',
        // biome-ignore lint/suspicious/noTemplateCurlyInString: bash ${...}, on purpose
        "bash -c 'echo \"child: ${plain:-none} $EXPORTED\"; greet child'",
        "ll; greet you; cd ..; [[ -o pipefail ]] && shopt -q nullglob && echo options",
      ].join("\n"),
    );
    expect(second.stderr).toBe("");
    expect(second.stdout).toBe(
      [
        path.join(dir, "sub"),
        `two\nlines 'quoted' $HOME \`x\`|yes|42|b c|$(nope)|`,
        "child: none yes",
        "hi child",
        "aliased",
        "hi you",
        "moved",
        "options",
        "",
      ].join("\n"),
    );
    expect(second.status).toBe(0);
  });

  it("keeps variables named like bash's own in another case, whatever the agent's nocasematch", () => {
    const dir = makeTempDir("ltt-shell-state-case-");
    const first = runCall(dir, null, "shopt -s nocasematch; uid=7; seconds=3; Pwd=here");
    expect(first.status).toBe(0);
    const second = runCall(dir, first.saved, 'echo "$uid $seconds $Pwd"; shopt -q nocasematch && echo kept');
    expect(second.stdout).toBe("7 3 here\nkept\n");
  });

  it("gives a forged state back as data: nothing in it runs, and the command's status stands", () => {
    const dir = makeTempDir("ltt-shell-state-forged-");
    const pwned = path.join(dir, "pwned");
    const touch = `$(touch ${pwned})`;
    const forged = parseShellState(
      record(
        "d",
        dir,
        ...["v", "plain", "", touch],
        ...["v", "number", "i", `a[${touch}]`],
        ...["a", "list", "a", "1", `1+${touch}`, "x"],
        ...["a", "map", "A", "1", touch, touch],
        ...["v", "__ltt_saved", "r", "1"],
        ...["v", "BASH_ENV", "x", pwned],
        ...["l", "bad;name", "true"],
        ...[
          "o",
          "set -o noexec\nset -o onecmd\nset -o errexit; touch pwned\nshopt -s extdebug\nset -o pipefail",
        ],
        "F",
        "declare -f evil\ndeclare -f exit\ndeclare -f other\n",
        [
          `evil () \n{ \n    :\n}; touch ${pwned}`,
          "exit () \n{ \n    builtin exit 0\n}",
          "other () \n{ \n    __ltt_f_x\n}\n",
        ].join("\n"),
      ),
    );
    expect(forged).not.toBeNull();
    const state = forged as ShellState;
    expect(state.variables.map((variable) => variable.name)).toEqual(["plain", "map", "BASH_ENV"]);
    expect(state.aliases).toEqual([]);
    expect(state.options).toEqual(["set -o pipefail"]);
    expect(state.functions.map((fn) => fn.name)).toEqual(["evil", "exit"]);
    const result = runCall(dir, state, 'echo "$plain"; cat /nonexistent');
    // The function named `exit` is the agent's, defined after the harness's own code: a command that
    // calls it gets what it asked for, but the command's own status is not touched.
    expect(result.status).toBe(1);
    expect(result.stdout).toBe(`${touch}\n`);
    expect(result.stderr).toContain("No such file or directory");
    expect(existsSync(pwned)).toBe(false);
  });

  it("takes the last whole record, and none from junk or a cut one", () => {
    const good = record("d", "/work", "v", "a", "", "1");
    expect(parseShellState(`junk\0${good}${record("d", "/other").slice(0, 20)}`)?.cwd).toBe("/work");
    expect(parseShellState("LTT-STATE-2\0d\0/work\0v\0a")).toBeNull();
    expect(parseShellState(record("d", "relative"))).toBeNull();
    expect(parseShellState(record("d", "/w", "zz", "x"))).toBeNull();
  });
});
