/**
 * What the agent's persistent shell carries from one call to the next (persistent-shell.ts): the
 * working directory, variables (exported or not, arrays too), functions, aliases and options. Each
 * call runs in a bash of its own; its state is saved as it exits and given to the next call's bash
 * before the command runs.
 *
 * The state is written by shell code running with the agent's functions defined, so it is whatever
 * the agent likes: it is parsed here as data and given back only as data, never as code the agent
 * wrote. Values go back quoted (`$'...'`), names must be names, integer values must be integers
 * (bash evaluates them), and functions pass through bash's own import of exported functions, which
 * takes exactly one function definition per variable and nothing after it. So a forged state can
 * change the agent's own variables and functions, never run a command before the next call's, nor
 * change its status. Functions named like a builtin or keyword (`builtin`, `printf`, `eval`) are
 * defined last, after the harness's last use of those builtins.
 *
 * Not kept: traps (a DEBUG, ERR or RETURN trap of one call is not run around the next), name
 * references (`declare -n`), the options `noexec` and `onecmd` (the next command would not run)
 * and `extdebug`,
 * `$!` and the jobs table (a background process keeps running but is not the next call's job).
 */

export interface ShellVariable {
  name: string;
  /** bash's attribute letters (`${name@a}`): a, A, i, l, r, t, u, x. */
  attributes: string;
  /** A scalar's value, or an array's entries (key, value), in order. */
  value: string | [string, string][];
}

export interface ShellFunction {
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

const START = "LTT-STATE-1";
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
export const ALL_VARIABLE_NAMES = [..."ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_"]
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
  `\\builtin printf '\\0' >&3; \\builtin set +euvx`,
  `for ${P}n in ${ALL_VARIABLE_NAMES}; do`,
  `case $${P}n in ${P}*) continue;; esac`,
  `${P}a=\${!${P}n@a}`,
  `if [[ $${P}a == *[aA]* ]]; then`,
  `\\builtin declare -n ${P}r=$${P}n`,
  `\\builtin printf 'a\\0%s\\0%s\\0%s\\0' "$${P}n" "$${P}a" "\${#${P}r[@]}" >&3`,
  `for ${P}k in "\${!${P}r[@]}"; do \\builtin printf '%s\\0%s\\0' "$${P}k" "\${${P}r[$${P}k]}" >&3; done`,
  `\\builtin unset -n ${P}r`,
  `elif [[ $${P}a != *n* && -v $${P}n ]]; then`,
  `\\builtin printf 'v\\0%s\\0%s\\0%s\\0' "$${P}n" "$${P}a" "\${!${P}n}" >&3`,
  "fi",
  "done",
  `for ${P}k in "\${!BASH_ALIASES[@]}"; do \\builtin printf 'l\\0%s\\0%s\\0' "$${P}k" "\${BASH_ALIASES[$${P}k]}" >&3; done`,
  // `declare -F` prints `declare -f name` or `declare -fx name` (exported); no fork without any.
  "if \\builtin compgen -A function >/dev/null; then",
  `while IFS= \\builtin read -r ${P}line; do`,
  `${P}n=\${${P}line##* }; ${P}a=\${${P}line#declare }; ${P}a=\${${P}a%% *}`,
  `case $${P}n in ${P}*) continue;; esac`,
  `\\builtin printf 'f\\0%s\\0%s\\0' "$${P}n" "$${P}a" >&3; \\builtin declare -f -- "$${P}n" >&3; \\builtin printf '\\0' >&3`,
  'done <<< "$(\\builtin declare -F)"',
  "fi",
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
      if (ALIAS_NAME.test(name)) state.aliases.push([name, value]);
    } else if (kind === "o") {
      const text = next();
      if (text === null) return null;
      for (const line of text.split("\n")) {
        if (OPTION.test(line) && !UNKEPT_OPTIONS.has(line.split(" ")[2] as string)) state.options.push(line);
      }
    } else if (kind === "f") {
      const [name, declared, text] = [next(), next(), next()];
      if (name === null || declared === null || text === null) return null;
      keepFunction(state, name, declared, text);
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

function keepFunction(state: ShellState, name: string, declared: string, text: string): void {
  if (!FUNCTION_NAME.test(name) || name.startsWith(HARNESS_PREFIX)) return;
  const head = `${name} () \n`;
  // The harness renames functions by this prefix: a body with it could be cut wrongly.
  if (!text.startsWith(head) || text.includes(HARNESS_PREFIX)) return;
  const body = text.slice(head.length).replace(/\n$/, "");
  if (!body.startsWith("{")) return;
  state.functions.push({ name, body, exported: declared === "-fx" });
}

/** The environment entries that give the next call's bash the state's functions (see the module comment). */
export function functionEnvironment(state: ShellState | null): string[] {
  return (state?.functions ?? []).map((fn) => `BASH_FUNC_${HARNESS_PREFIX}f_${fn.name}%%=() ${fn.body}`);
}

/**
 * The script the next call's bash reads before its command (through BASH_ENV): the state given
 * back, and the EXIT trap that saves it to `stateFile` after the command. Run before any of the
 * agent's functions is defined under its own name, and with none of its traps or options yet.
 */
export function renderPrelude(state: ShellState | null, stateFile: string): string {
  const trap = `if (\n${SAVE_SCRIPT}\n) 3>${quoteForBash(stateFile)} >/dev/null 2>&1; then ${HARNESS_PREFIX}saved=1; fi`;
  const lines = ["unset BASH_ENV ENV", `trap ${quoteForBash(trap)} EXIT`, "shopt -s expand_aliases"];
  if (state) {
    lines.push(`cd -- ${quoteForBash(state.cwd)} 2>/dev/null`);
    for (const variable of state.variables) lines.push(renderVariable(variable));
    for (const [name, value] of state.aliases) lines.push(`alias -- ${quoteForBash(`${name}=${value}`)}`);
    lines.push(...renderFunctions(state));
  }
  return `${lines.join("\n")}\n`;
}

function renderVariable({ name, attributes, value }: ShellVariable): string {
  const flags = `-g${attributes}`;
  if (!Array.isArray(value)) return `declare ${flags} ${name}=${quoteForBash(value)}`;
  const entries = value.map(([key, entry]) => `[${quoteForBash(key)}]=${quoteForBash(entry)}`).join(" ");
  return `declare ${flags} ${name}=(${entries})`;
}

/**
 * The functions (imported under the harness's prefix), renamed to their own names; then the
 * options; then the functions named like builtins, once no builtin of the harness's runs any more.
 */
function renderFunctions(state: ShellState): string[] {
  const plain = state.functions.filter((fn) => !BUILTIN_NAMES.has(fn.name));
  const late = state.functions.filter((fn) => BUILTIN_NAMES.has(fn.name));
  const imported = (list: ShellFunction[]) => list.map((fn) => `${HARNESS_PREFIX}f_${fn.name}`).join(" ");
  const lines: string[] = [];
  const renamed = (variable: string, list: ShellFunction[]) => {
    if (list.length === 0) return;
    lines.push(
      `${variable}=$(declare -f ${imported(list)})`,
      `${variable}=$'\\n'$${variable}; ${variable}=\${${variable}//$'\\n${HARNESS_PREFIX}f_'/$'\\n'}`,
    );
  };
  if (state.functions.length > 0) lines.push(`export -fn ${imported(state.functions)}`);
  renamed(`${HARNESS_PREFIX}plain`, plain);
  renamed(`${HARNESS_PREFIX}late`, late);
  if (state.functions.length > 0) lines.push(`unset -f ${imported(state.functions)}`);
  if (plain.length > 0) lines.push(`eval "$${HARNESS_PREFIX}plain"`);
  const exported = plain.filter((fn) => fn.exported).map((fn) => quoteForBash(fn.name));
  if (exported.length > 0) lines.push(`export -f ${exported.join(" ")}`);
  // One eval: options first (xtrace then traces no harness command), the late definitions last.
  const last = [`unset -v ${HARNESS_PREFIX}plain ${HARNESS_PREFIX}late`, ...state.options].join("\n");
  lines.push(late.length > 0 ? `eval ${quoteForBash(`${last}\n`)}"$${HARNESS_PREFIX}late"` : last);
  return lines;
}

export function hasState(text: string): boolean {
  return text.includes(START);
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
