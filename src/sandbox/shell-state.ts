/**
 * What the agent's persistent shell carries from one call to the next (persistent-shell.ts): the
 * working directory, variables (exported or not, arrays too), functions, aliases and options. Each
 * call runs in a process of its own (a fork of the runner, or a bash when there are functions); its
 * state is saved as it exits and given to the next call's process before the command runs.
 *
 * The state is written by shell code running with the agent's functions defined, so it is whatever
 * the agent likes: it is parsed here as data and given back only as data, never as code the agent
 * wrote. Values go back quoted (`$'...'`), names must be names, integer values must be integers
 * (bash evaluates them), and functions pass through bash's own import of exported functions, which
 * takes exactly one function definition per variable and nothing after it. So a forged state can
 * change the agent's own variables and functions, never run a command before the next call's, nor
 * change its status. Functions named like a builtin or keyword (`builtin`, `printf`, `eval`) are
 * defined last, after the harness's last use of those builtins; aliases are given back after
 * every other command of the harness's (as BASH_ALIASES assignments, which no alias replaces), and
 * the save that runs after the command is a function parsed before any alias existed, calling
 * builtins only (in a subshell when a function is named like one, so no function of the agent's
 * can end the call with another status).
 *
 * Not kept: traps (a DEBUG, ERR or RETURN trap of one call is not run around the next), name
 * references (`declare -n`), the options `noexec` and `onecmd` (the next command would not run)
 * and `extdebug`,
 * `$!` and the jobs table (a background process keeps running but is not the next call's job).
 */

interface ShellVariable {
  name: string;
  /** bash's attribute letters (`${name@a}`): a, A, i, l, r, t, u, x. */
  attributes: string;
  /** A scalar's value, or an array's entries (key, value), in order. */
  value: string | [string, string][];
}

interface ShellFunction {
  name: string;
  /** Its definition as `declare -f` prints it, from the line after `name () `. */
  body: string;
  exported: boolean;
}

export interface ShellState {
  cwd: string;
  variables: ShellVariable[];
  functions: ShellFunction[];
  aliases: [string, string][];
  /** `set -o x`, `set +o x`, `shopt -s x`, `shopt -u x` lines. */
  options: string[];
}

const START = "LTT-STATE-2";
const END = "LTT-END";
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const FUNCTION_NAME = /^[A-Za-z_][A-Za-z0-9_.:-]*$/;
const ALIAS_NAME = /^[A-Za-z0-9_.:@%+,-]+$/;
const ATTRIBUTES = /^[aAilrtux]*$/;
const INTEGER = /^-?[0-9]+$/;
const OPTION = /^(?:set [-+]o [a-z-]+|shopt -[su] [a-z0-9_]+)$/;
/**
 * Options that would keep the next command from running, shopt's read-only ones, and extdebug (set
 * while bash reads its startup file, it looks for a debugger, and without one is turned off).
 */
const UNKEPT_OPTIONS = new Set(["noexec", "onecmd", "login_shell", "restricted_shell", "extdebug"]);
/** The prefix of the harness's own names in the shell: the agent's of that shape are not kept. */
export const HARNESS_PREFIX = "__ltt_";
/** bash's own variables (set by bash, read-only, or describing the running shell). */
const BASH_VARIABLES = new Set(
  [
    "BASH BASHOPTS BASHPID BASH_ALIASES BASH_ARGC BASH_ARGV BASH_ARGV0 BASH_CMDS BASH_COMMAND",
    "BASH_EXECUTION_STRING BASH_LINENO BASH_MONOSECONDS BASH_REMATCH BASH_SOURCE BASH_SUBSHELL",
    "BASH_TRAPSIG BASH_VERSINFO BASH_VERSION COMP_WORDBREAKS DIRSTACK EPOCHREALTIME EPOCHSECONDS",
    "EUID FUNCNAME GROUPS HISTCMD HOSTNAME HOSTTYPE LINENO MACHTYPE OSTYPE PIPESTATUS PPID PWD",
    "RANDOM SECONDS SHELLOPTS SHLVL SRANDOM UID _",
  ]
    .join(" ")
    .split(" "),
);
/** bash's builtins and keywords: a function so named is defined after the harness's own code. */
const BUILTIN_NAMES = new Set(
  [
    ". : [ alias bg bind break builtin caller cd command compgen complete compopt continue declare",
    "dirs disown echo enable eval exec exit export false fc fg getopts hash help history jobs kill",
    "let local logout mapfile popd printf pushd pwd read readarray readonly return set shift shopt",
    "source suspend test times trap true type typeset ulimit umask unalias unset wait",
    "if then else elif fi case esac for select while until do done in function time { } ! [[ ]] coproc",
  ]
    .join(" ")
    .split(" "),
);
/** State beyond this is not kept (the next call keeps the one before). */
export const MAX_STATE_BYTES = 8 * 1024 * 1024;

const P = HARNESS_PREFIX;
/** Every variable name bash has, without a fork: `${!A@}` lists those starting with A. */
const ALL_VARIABLE_NAMES = [..."ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_"]
  .map((letter) => `"\${!${letter}@}"`)
  .join(" ");

/**
 * The bash code that writes the state to descriptor 3, NUL-separated: run in a subshell of the
 * EXIT trap, so nothing it does (or an agent's function it meets) changes the call's status. Its
 * builtins are called as such, so an agent's `printf` or `cd` wrapper does not lose its state.
 */
const SAVE_SCRIPT = [
  // Its own names carry the prefix (not saved); IFS stays the agent's (saved as it is).
  // The options first, as the command left them (a command substitution would not see -e); then
  // none of them in the way.
  `\\builtin printf '${START}\\0d\\0%s\\0o\\0' "$PWD" >&3; \\builtin set +o >&3; \\builtin shopt -p >&3`,
  // The variables and aliases are gathered in an array and written at once: one write, not one per variable.
  // nocasematch off: the `case` below would take `uid` for bash's UID and leave it out.
  `\\builtin printf '\\0' >&3; \\builtin set +euvx; \\builtin shopt -u nocasematch; ${P}o=()`,
  // bash's own variables are not kept: left out, the text is the same from call to call when
  // nothing changed (SECONDS, RANDOM, $_ would differ), and the harness parses nothing then.
  `for ${P}n in ${ALL_VARIABLE_NAMES}; do`,
  `case $${P}n in ${P}*|${[...BASH_VARIABLES].join("|")}) continue;; esac`,
  `${P}a=\${!${P}n@a}`,
  `if [[ $${P}a == *[aA]* ]]; then`,
  `\\builtin declare -n ${P}r=$${P}n`,
  `${P}o+=(a "$${P}n" "$${P}a" "\${#${P}r[@]}")`,
  `for ${P}k in "\${!${P}r[@]}"; do ${P}o+=("$${P}k" "\${${P}r[$${P}k]}"); done`,
  `\\builtin unset -n ${P}r`,
  `elif [[ $${P}a != *n* && -v $${P}n ]]; then`,
  `${P}o+=(v "$${P}n" "$${P}a" "\${!${P}n}")`,
  "fi",
  "done",
  `for ${P}k in "\${!BASH_ALIASES[@]}"; do ${P}o+=(l "$${P}k" "\${BASH_ALIASES[$${P}k]}"); done`,
  `\\builtin printf '%s\\0' "\${${P}o[@]}" >&3`,
  // Every function's name (`declare -f name`, or `declare -fx name` when exported) then every
  // definition, in the same order: split by parseRecord, no fork for a loop over them.
  `\\builtin printf 'F\\0' >&3; \\builtin declare -F >&3; \\builtin printf '\\0' >&3; \\builtin declare -f >&3; \\builtin printf '\\0' >&3`,
  `\\builtin printf '${END}\\0' >&3`,
].join("\n");

/**
 * The last whole state record in `text` (what the state channel received during a call), checked;
 * null when there is none.
 */
export function parseShellState(text: string): ShellState | null {
  const fields = text.split("\0");
  for (let start = fields.lastIndexOf(START); start >= 0; start = fields.lastIndexOf(START, start - 1)) {
    const state = parseRecord(fields, start + 1);
    if (state) return state;
    if (start === 0) break;
  }
  return null;
}

function parseRecord(fields: string[], from: number): ShellState | null {
  const state: ShellState = { cwd: "", variables: [], functions: [], aliases: [], options: [] };
  let at = from;
  const next = (): string | null => (at < fields.length ? (fields[at++] as string) : null);
  for (;;) {
    const kind = next();
    if (kind === null) return null;
    if (kind === END) return state.cwd.startsWith("/") ? state : null;
    if (kind === "d") {
      state.cwd = next() ?? "";
    } else if (kind === "v") {
      const [name, attributes, value] = [next(), next(), next()];
      if (value === null || name === null || attributes === null) return null;
      keepVariable(state, { name, attributes, value });
    } else if (kind === "a") {
      const [name, attributes, countText] = [next(), next(), next()];
      if (countText === null || name === null || attributes === null || !/^[0-9]{1,7}$/.test(countText))
        return null;
      const entries: [string, string][] = [];
      for (let index = 0; index < Number(countText); index += 1) {
        const [key, value] = [next(), next()];
        if (key === null || value === null) return null;
        entries.push([key, value]);
      }
      keepVariable(state, { name, attributes, value: entries });
    } else if (kind === "l") {
      const [name, value] = [next(), next()];
      if (name === null || value === null) return null;
      if (ALIAS_NAME.test(name) && !name.startsWith(HARNESS_PREFIX)) state.aliases.push([name, value]);
    } else if (kind === "o") {
      const text = next();
      if (text === null) return null;
      for (const line of text.split("\n")) {
        if (OPTION.test(line) && !UNKEPT_OPTIONS.has(line.split(" ")[2] as string)) state.options.push(line);
      }
    } else if (kind === "F") {
      const [names, definitions] = [next(), next()];
      if (names === null || definitions === null) return null;
      keepFunctions(state, names, definitions);
    } else {
      return null;
    }
  }
}

function keepVariable(state: ShellState, variable: ShellVariable): void {
  const { name, attributes, value } = variable;
  if (!NAME.test(name) || name.startsWith(HARNESS_PREFIX) || BASH_VARIABLES.has(name)) return;
  if (!ATTRIBUTES.test(attributes)) return;
  const isArray = /[aA]/.test(attributes);
  if (isArray !== Array.isArray(value)) return;
  // bash evaluates what is assigned to an integer, and an indexed array's keys: digits only.
  const values = Array.isArray(value) ? value.map(([, entry]) => entry) : [value];
  if (attributes.includes("i") && !values.every((entry) => INTEGER.test(entry))) return;
  if (attributes.includes("a") && Array.isArray(value) && !value.every(([key]) => /^[0-9]+$/.test(key)))
    return;
  state.variables.push(variable);
}

/**
 * The functions of `declare -F` (`declare -f name` / `declare -fx name` lines) and their
 * definitions, `declare -f`'s text, in the same order: each one from its `name () ` line to the
 * next one's. A body that holds the next one's first line is cut there, and then its own import
 * refuses it: the agent's own functions only, never run otherwise.
 */
function keepFunctions(state: ShellState, names: string, definitions: string): void {
  const declared = names
    .split("\n")
    .map((line) => /^declare (-fx?) (\S+)$/.exec(line))
    .filter((match) => match !== null)
    .map((match) => ({ exported: match[1] === "-fx", name: match[2] as string }));
  let at = 0;
  declared.forEach(({ name, exported }, index) => {
    const head = `${name} () \n`;
    // Where a body before was cut wrongly, this one's own first line is further on.
    if (!definitions.startsWith(head, at)) at = definitions.indexOf(`\n${head}`, at) + 1;
    if (at === 0 && !definitions.startsWith(head)) {
      at = definitions.length;
      return;
    }
    const following = declared[index + 1];
    const end = following ? definitions.indexOf(`\n${following.name} () \n`, at + head.length) : -1;
    const text = definitions.slice(at, end === -1 ? definitions.length : end + 1);
    at = end === -1 ? definitions.length : end + 1;
    // `declare -f` follows an exported function's definition with its `declare -fx name` line.
    const mark = `}\ndeclare -fx ${name}\n`;
    keepFunction(
      state,
      name,
      exported && text.endsWith(mark) ? text.slice(0, 2 - mark.length) : text,
      exported,
    );
  });
}

function keepFunction(state: ShellState, name: string, text: string, exported: boolean): void {
  if (!FUNCTION_NAME.test(name) || name.startsWith(HARNESS_PREFIX)) return;
  const head = `${name} () \n`;
  // The harness renames functions by this prefix: a body with it could be cut wrongly.
  if (!text.startsWith(head) || text.includes(HARNESS_PREFIX)) return;
  const body = text.slice(head.length).replace(/\n$/, "");
  if (!body.startsWith("{")) return;
  state.functions.push({ name, body, exported });
}

/**
 * Functions named like a builtin or keyword: imported under the harness's prefix and defined last
 * (see renderFunctions), the others under their own names.
 */
function isLate(fn: ShellFunction): boolean {
  return BUILTIN_NAMES.has(fn.name);
}

/**
 * The environment entries that give the next call's bash the state's functions, through bash's own
 * import (see the module comment). Empty when the state has none: the call then runs in a fork of
 * the runner, without a new bash (persistent-shell.ts).
 */
export function functionEnvironment(state: ShellState | null): string[] {
  return (state?.functions ?? []).map(
    (fn) => `BASH_FUNC_${isLate(fn) ? `${HARNESS_PREFIX}f_` : ""}${fn.name}%%=() ${fn.body}`,
  );
}

/** How the call's bash starts (persistent-shell.ts's runner). */
export interface PreludeOptions {
  /**
   * A fork of the runner (the state has no functions): its variables (the runner's own, and in a
   * clean start every other one) are unset first; otherwise a bash of its own, started by env(1)
   * with the state's functions only.
   */
  forked: boolean;
}

/**
 * The script the next call's bash reads before its command (sourced by a fork of the runner, or
 * as BASH_ENV): the state given back, and the EXIT trap that saves it to `stateFile` after the
 * command. Run before any of the agent's functions is defined under its own name (but those bash
 * imported, which no builtin name has), with none of its traps, and without alias expansion: the
 * aliases come last, as assignments (no command word an alias or function could take), and only
 * the functions named like builtins after them.
 */
export function renderPrelude(state: ShellState | null, stateFile: string, options: PreludeOptions): string {
  const lines: string[] = [];
  if (options.forked) {
    // The runner's own variables (but the command it is about to run), and in a clean start all
    // the others but bash's own: the state's are declared again below.
    lines.push(
      `for ${P}n in "\${!${P}@}"; do [[ $${P}n == ${P}command ]] || unset -v "$${P}n"; done`,
      ...(state
        ? [
            `for ${P}n in ${ALL_VARIABLE_NAMES}; do case $${P}n in ${[...BASH_VARIABLES].join("|")}|${P}*) ;; *) unset -v "$${P}n";; esac; done 2>/dev/null`,
          ]
        : []),
      "SHLVL=1",
    );
  } else {
    lines.push(`BASH=$${P}bash; unset -v ${P}bash BASH_ENV ENV; exec 7<&-`);
  }
  // With functions named like builtins, the save runs in a subshell: one of them (`builtin`) that
  // the save meets can end that subshell, never the call's bash with another status. Without them
  // nothing of the agent's is on the save's way (its builtins are called as such), so no fork.
  const late = (state?.functions ?? []).filter(isLate);
  const [open, close] = late.length > 0 ? ["(", ")"] : ["{", "}"];
  lines.push(
    [`${P}save () { ${open}`, SAVE_SCRIPT, `${close} 3>${quoteForBash(stateFile)} >/dev/null 2>&1; }`].join(
      "\n",
    ),
    `trap '\\${P}save' EXIT`,
  );
  let expandAliases = true;
  if (state) {
    lines.push(`cd -- ${quoteForBash(state.cwd)} 2>/dev/null`);
    for (const variable of state.variables) lines.push(renderVariable(variable));
    lines.push(...renderPlainFunctions(state));
    for (const option of state.options) {
      if (option.endsWith(" expand_aliases")) expandAliases = option.startsWith("shopt -s");
      else lines.push(option);
    }
  }
  if (expandAliases) lines.push("shopt -s expand_aliases");
  for (const [name, value] of state?.aliases ?? []) {
    lines.push(`BASH_ALIASES[${quoteForBash(name)}]=${quoteForBash(value)}`);
  }
  if (late.length > 0) lines.push(...renderLateFunctions(late));
  return `${lines.join("\n")}\n`;
}

function renderVariable({ name, attributes, value }: ShellVariable): string {
  const flags = `-g${attributes}`;
  if (!Array.isArray(value)) return `declare ${flags} ${name}=${quoteForBash(value)}`;
  const entries = value.map(([key, entry]) => `[${quoteForBash(key)}]=${quoteForBash(entry)}`).join(" ");
  return `declare ${flags} ${name}=(${entries})`;
}

/** The functions imported under their own names (all exported by the import): the unexported ones unmarked. */
function renderPlainFunctions(state: ShellState): string[] {
  const unexported = state.functions.filter((fn) => !isLate(fn) && !fn.exported);
  return unexported.length > 0 ? [`export -fn ${unexported.map((fn) => fn.name).join(" ")}`] : [];
}

/** Builtins the late functions' own definition runs: functions so named are defined after it. */
const DEFINED_LAST = new Set(["builtin", "eval", "export"]);

/**
 * The functions named like builtins, imported under the harness's prefix, defined under their own
 * names by the prelude's last command: after it nothing of the harness's runs but the EXIT trap's
 * save (in a subshell then). Aliases are in place by then, so every command word is quoted
 * (`\declare`: no alias) and each definition is written `function name () ...` (its name no
 * command word). Those named like the builtins this runs come last, after the others' `export -f`.
 */
function renderLateFunctions(late: ShellFunction[]): string[] {
  const imported = (list: ShellFunction[]) => list.map((fn) => `${P}f_${fn.name}`).join(" ");
  const first = late.filter((fn) => !DEFINED_LAST.has(fn.name));
  const last = late.filter((fn) => DEFINED_LAST.has(fn.name));
  const exported = first.filter((fn) => fn.exported).map((fn) => fn.name);
  const text = `${P}late`;
  const parts = [
    first.length > 0 ? `$(\\declare -f ${imported(first)})` : "",
    exported.length > 0 ? `$'\\n\\\\export -f ${exported.join(" ")}'` : "",
    last.length > 0 ? `$'\\n'$(\\declare -f ${imported(last)})` : "",
  ].filter((part) => part !== "");
  return [
    `${text}=$'\\n'${parts.join("")}; \\unset -f ${imported(late)}`,
    `${text}=\${${text}//$'\\n${P}f_'/$'\\nfunction '}; \\eval "$${text}"`,
  ];
}

/** `$'...'`: any text as one bash word, every byte but NUL (refused before) kept. */
export function quoteForBash(text: string): string {
  let quoted = "$'";
  for (const char of text) {
    const code = char.codePointAt(0) as number;
    if (char === "\\" || char === "'") quoted += `\\${char}`;
    else if (code < 0x20 || code === 0x7f) quoted += `\\x${code.toString(16).padStart(2, "0")}`;
    else quoted += char;
  }
  return `${quoted}'`;
}
