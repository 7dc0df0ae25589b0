/**
 * Where a bashkit-eval task starts and what its HOME is, by the bashkit version that ran it.
 * bashkit-eval's shell is bashkit's interpreter over an in-memory filesystem (user `eval`), and
 * that layout changed twice; a task whose commands use `~`, `$HOME`, `cd` or relative paths can
 * pass or fail on it. From bashkit's history (github.com/everruns/bashkit) and its recorded runs
 * (crates/bashkit-eval/results, where `pwd`, `ls ~` and `echo $HOME` show it):
 *
 * - every version starts in /home/user, a folder its filesystem always has (with /tmp and /dev);
 * - before commit a1512d6f (#252, on main 2026-02-24T17:33:50Z) HOME was not set: `$HOME` was
 *   empty and `~` fell back to /home/user (the 2026-02-09 runs write `~/employees.csv` there);
 * - from a1512d6f HOME is /home/<user> = /home/eval, a folder nothing made: `ls ~` said "cannot
 *   access '/home/eval': No such file or directory" and writing there failed (2026-02-27, 2026-05-26
 *   runs), unless a task's own file lay under it;
 * - from commit 78869698 (#2135, on main 2026-06-28T09:43:23Z) /home/eval is made empty at start.
 *
 * a1512d6f also began to set USER, PWD and HOSTNAME as variables (before, `$USER` was empty, and
 * `whoami` alone said `eval`); bash sets PWD and HOSTNAME itself, and USER stays `eval` here in
 * every layout: no recorded run of that time reads `$USER`.
 *
 * A recording's date (`timestamp`, UTC) picks its layout, against the moment each change landed on
 * bashkit's main. The newest layout is the current bashkit's (checked at bashkit b7097abb, 2026-08-08).
 */
import { ConfigError } from "../errors.js";
import type { HomeLayout } from "./types.js";

const BASHKIT_CWD = "/home/user";
const BASHKIT_HOME = "/home/eval";

/** One era of bashkit's home layout: the layout, and since when bashkit's main had it. */
export interface BashkitHomeEra {
  layout: HomeLayout;
  /** ISO 8601 UTC instant the change landed on bashkit's main; null for the first era. */
  since: string | null;
  /** The bashkit change that began it, for messages and docs. */
  change: string;
}

export const BASHKIT_HOME_ERAS: readonly BashkitHomeEra[] = [
  {
    layout: {
      name: "bashkit-home-unset",
      workDir: BASHKIT_CWD,
      home: null,
      homeExists: false,
      // bashkit's `~` fell back to /home/user; bash's falls back to the passwd entry.
      passwdHome: BASHKIT_CWD,
    },
    since: null,
    change: "bashkit before a1512d6f: HOME not set",
  },
  {
    layout: {
      name: "bashkit-home-missing",
      workDir: BASHKIT_CWD,
      home: BASHKIT_HOME,
      homeExists: false,
      passwdHome: BASHKIT_HOME,
    },
    since: "2026-02-24T17:33:50Z",
    change: "bashkit a1512d6f (#252): HOME=/home/eval, a folder that does not exist",
  },
  {
    layout: {
      name: "bashkit-home-created",
      workDir: BASHKIT_CWD,
      home: BASHKIT_HOME,
      homeExists: true,
      passwdHome: BASHKIT_HOME,
    },
    since: "2026-06-28T09:43:23Z",
    change: "bashkit 78869698 (#2135): /home/eval made at start",
  },
];

/** The current bashkit's layout: what a live run of a bashkit dataset gets unless told otherwise. */
export const CURRENT_BASHKIT_HOME: HomeLayout = (BASHKIT_HOME_ERAS.at(-1) as BashkitHomeEra).layout;

/** `2026-02-24`, `2026-02-24T17:33`, `…:50Z`, `…:50.123+02:00`; without a zone, UTC. */
const TIMESTAMP = /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)(Z|[+-]\d{2}:?\d{2})?)?$/i;

/** The instant a timestamp names (ms since the epoch), or null when it is not one. */
function parseInstant(text: string): number | null {
  const match = TIMESTAMP.exec(text.trim());
  if (!match) return null;
  const [, date = "", time, zone] = match;
  // Date.parse rolls 2026-02-30 over to March: such a date is not a date.
  if (
    Number.isNaN(Date.parse(`${date}T00:00Z`)) ||
    new Date(`${date}T00:00Z`).toISOString().slice(0, 10) !== date
  )
    return null;
  const ms = Date.parse(`${date}T${time ?? "00:00"}${zone ?? "Z"}`);
  return Number.isNaN(ms) ? null : ms;
}

/** The layout of the bashkit that ran at `timestamp` (a recording's date); null when it is no date. */
export function bashkitHomeAt(timestamp: string): HomeLayout | null {
  const instant = parseInstant(timestamp);
  if (instant === null) return null;
  let found = BASHKIT_HOME_ERAS[0] as BashkitHomeEra;
  for (const era of BASHKIT_HOME_ERAS) {
    if (era.since !== null && instant >= Date.parse(era.since)) found = era;
  }
  return found.layout;
}

/** A layout by its name, or undefined. */
export function bashkitHomeNamed(name: string): HomeLayout | undefined {
  return BASHKIT_HOME_ERAS.find((era) => era.layout.name === name)?.layout;
}

/**
 * `--bashkit-home`: a layout's name, `current`, or a date (the bashkit of that day and time, UTC
 * without a zone). A ConfigError naming the option and the choices otherwise.
 */
export function parseBashkitHome(text: string, field = "--bashkit-home"): HomeLayout {
  const value = text.trim();
  if (value === "current") return CURRENT_BASHKIT_HOME;
  const named = bashkitHomeNamed(value);
  if (named) return named;
  const dated = bashkitHomeAt(value);
  if (dated) return dated;
  const names = BASHKIT_HOME_ERAS.map((era) => era.layout.name).join(", ");
  throw new ConfigError(
    // ConfigError puts `field: ` before the message.
    `expected current, ${names}, or a date such as 2026-05-26 or 2026-05-26T12:00Z (the bashkit at that moment, UTC; a day alone is its start), found ${JSON.stringify(text)}`,
    field,
  );
}
