// @ts-check
/**
 * A process's descendants, read from /proc, for the process runner's kills (process-runner.js).
 *
 * Why a group kill is not enough: a process that left the run's group (setsid) is out of its
 * reach. bwrap's sandbox init does so (--new-session), and it arms --die-with-parent only once its
 * setup is done: when the group's kill lands during that setup, bwrap's monitor (the group's
 * leader) dies at SIGTERM, and the init, orphaned and out of the group, goes on to start the
 * command, which lives on (a hanging gate's `sleep` outlived a SIGTERMed CLI on a loaded machine).
 * So a kill takes the tree while the leader still lives, and ends its members by pid.
 *
 * Plain JavaScript with only `node:` imports, like process-runner-protocol.js. Linux only;
 * elsewhere nothing is found.
 */
import { readdirSync, readFileSync } from "node:fs";

/**
 * One process, known by its pid and its start time (so a recycled pid is never taken for it).
 * @typedef {{ pid: number; group: number; startTime: string }} TreeMember
 */

/**
 * @typedef {object} ProcStat
 * @property {number} parent
 * @property {number} group
 * @property {string} startTime  clock ticks after boot, as /proc writes it
 */

/**
 * Fields of /proc/<pid>/stat after the command name (which may hold spaces and parentheses).
 * @param {string} pid
 * @returns {ProcStat | null}
 */
function readStat(pid) {
  let text;
  try {
    text = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return null;
  }
  // After ") ": state(3) ppid(4) pgrp(5) ... starttime(22).
  const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
  const state = fields[0];
  // A zombie is already dead: nothing to end, and its pid is about to be free.
  if (state === "Z" || state === "X" || fields.length < 20) return null;
  return { parent: Number(fields[1]), group: Number(fields[2]), startTime: fields[19] ?? "" };
}

/**
 * `pid` (when it is alive) and every live descendant of it, at this moment.
 * @param {number} pid
 * @returns {TreeMember[]}
 */
export function findTree(pid) {
  const stat = readStat(String(pid));
  if (!stat) return [];
  return [{ pid, group: stat.group, startTime: stat.startTime }, ...findDescendants([pid])];
}

/**
 * Every live descendant of each of `roots` (the roots themselves not included), at this moment.
 * @param {readonly number[]} roots
 * @returns {TreeMember[]}
 */
function findDescendants(roots) {
  /** @type {string[]} */
  let names;
  try {
    names = readdirSync("/proc");
  } catch {
    return [];
  }
  /** @type {Map<number, TreeMember[]>} */
  const children = new Map();
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    const stat = readStat(name);
    if (!stat) continue;
    const siblings = children.get(stat.parent) ?? [];
    siblings.push({ pid: Number(name), group: stat.group, startTime: stat.startTime });
    children.set(stat.parent, siblings);
  }
  /** @type {TreeMember[]} */
  const found = [];
  const seen = new Set(roots);
  const queue = [...roots];
  for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
    for (const child of children.get(next) ?? []) {
      if (seen.has(child.pid)) continue;
      seen.add(child.pid);
      found.push(child);
      queue.push(child.pid);
    }
  }
  return found;
}

/**
 * Whether `member` is still the process it was (same pid, same start time) and alive.
 * @param {TreeMember} member
 */
function isSameProcess(member) {
  return readStat(String(member.pid))?.startTime === member.startTime;
}

/**
 * Signals `member` if it is still the process it was.
 * @param {TreeMember} member
 * @param {NodeJS.Signals} signal
 */
export function signalMember(member, signal) {
  if (!isSameProcess(member)) return;
  try {
    process.kill(member.pid, signal);
  } catch {
    // Gone meanwhile.
  }
}

/**
 * SIGKILLs the members of `tree` (taken earlier) that are still there, and whatever they started
 * since: a member that forked after the tree was taken, or a sandbox init that started its command.
 * @param {readonly TreeMember[]} tree
 */
export function killTree(tree) {
  const live = tree.filter(isSameProcess);
  const later = findDescendants(live.map((member) => member.pid));
  for (const member of [...live, ...later]) signalMember(member, "SIGKILL");
}
