/**
 * Target invocations for layer 1 (DESIGN §3), from the best source a trial offers:
 * 1. `shim`: the PATH shim's `target_invocation` records, exact argv and exit code. Used whenever
 *    the scenario names `target.binary`; zero records then means the agent never ran it.
 * 2. `tool_events`: each agent `tool_call` whose command invokes the target (by
 *    `target.command_pattern`, else by the binary's name as a word) is one invocation, with the
 *    exit code of its `tool_result`. Chained calls in one bash command count once.
 * 3. `transcript_regex`: every match of `command_pattern` in an external agent's free text
 *    (`agent_output`). Exit codes are unknown there (null); see metrics.ts for how null counts.
 * 4. `none`: nothing identifies the target.
 * For sources 2 and 3, `argv` is a best-effort shell split of the text from the match up to the
 * next control operator (`;`, `&&`, `|`, newline...), with redirections dropped.
 */

import { ConfigError, describeError } from "../errors.js";
import type { InvocationSource } from "../results/types.js";
import type { Target } from "../scenario/types.js";
import type { EventOf, TrialEvent } from "../transcript/events.js";
import { compilePattern } from "./regex.js";

export interface Invocation {
  /** The full command line as text (shim: argv joined with shell quoting). */
  command: string;
  argv: string[] | null;
  subcommand: string | null;
  exit_code: number | null;
  duration_ms: number | null;
}

export interface ExtractedInvocations {
  source: InvocationSource;
  invocations: Invocation[];
}

export function extractInvocations(events: readonly TrialEvent[], target: Target): ExtractedInvocations {
  if (target.binary) return { source: "shim", invocations: extractShimInvocations(events, target) };
  if (!target.commandPattern) return { source: "none", invocations: [] };
  // Structured tool events are exact even when there are none, unless the agent only left free text.
  let hasToolCalls = false;
  let hasAgentOutput = false;
  for (const event of events) {
    if (event.type === "tool_call") hasToolCalls = true;
    else if (event.type === "agent_output") hasAgentOutput = true;
  }
  if (hasToolCalls || !hasAgentOutput) {
    return { source: "tool_events", invocations: extractToolEventInvocations(events, target) };
  }
  return { source: "transcript_regex", invocations: extractTranscriptInvocations(events, target) };
}

/** Invocations from the shim's `target_invocation` records. */
export function extractShimInvocations(events: readonly TrialEvent[], target: Target): Invocation[] {
  const pattern = compileTargetPattern(target);
  const invocations: Invocation[] = [];
  for (const event of events) {
    if (event.type !== "target_invocation") continue;
    const command = event.argv.map(quoteShellWord).join(" ");
    invocations.push({
      command,
      argv: [...event.argv],
      subcommand: findPatternSubcommand(pattern, command) ?? findArgvSubcommand(event.argv),
      exit_code: event.exit_code,
      duration_ms: event.duration_ms,
    });
  }
  return invocations;
}

/** One invocation per agent tool call that invokes the target (pattern first, else binary name). */
export function extractToolEventInvocations(events: readonly TrialEvent[], target: Target): Invocation[] {
  const pattern = compileTargetPattern(target);
  const binaryWord = target.binary ? compileBinaryWord(target.binary) : null;
  if (!pattern && !binaryWord) return [];
  const results = new Map<string, EventOf<"tool_result">>();
  for (const event of events) if (event.type === "tool_result") results.set(event.call_id, event);

  const invocations: Invocation[] = [];
  for (const event of events) {
    if (event.type !== "tool_call") continue;
    const start = findTargetStart(event.command, pattern, binaryWord);
    if (start === null) continue;
    const argv = splitShellSegment(event.command, start);
    const result = results.get(event.call_id);
    invocations.push({
      command: event.command,
      argv,
      subcommand: findPatternSubcommand(pattern, event.command) ?? findArgvSubcommand(argv),
      exit_code: result ? result.exit_code : null,
      duration_ms: result ? result.duration_ms : null,
    });
  }
  return invocations;
}

/** Every match of `command_pattern` in `agent_output` text; exit codes and durations unknown. */
export function extractTranscriptInvocations(events: readonly TrialEvent[], target: Target): Invocation[] {
  const pattern = compileTargetPattern(target);
  if (!pattern) return [];
  const global = new RegExp(
    pattern.source,
    pattern.flags.includes("g") ? pattern.flags : `${pattern.flags}g`,
  );
  const invocations: Invocation[] = [];
  for (const event of events) {
    if (event.type !== "agent_output") continue;
    const text = event.text;
    global.lastIndex = 0;
    for (let match = global.exec(text); match !== null; match = global.exec(text)) {
      if (match[0] === "") {
        global.lastIndex += 1; // an empty match would loop forever
        continue;
      }
      const lineEnd = text.indexOf("\n", match.index);
      // Markdown often wraps commands in backticks; the closing one is not part of the command.
      const command = text
        .slice(match.index, lineEnd === -1 ? text.length : lineEnd)
        .trim()
        .replace(/`+$/, "");
      const argv = splitShellSegment(text, match.index);
      invocations.push({
        command,
        argv,
        subcommand: match[1] ?? findArgvSubcommand(argv),
        exit_code: null,
        duration_ms: null,
      });
    }
  }
  return invocations;
}

/** The first non-option argument after the binary (`--` ends the options). */
export function findArgvSubcommand(argv: readonly string[]): string | null {
  for (let index = 1; index < argv.length; index += 1) {
    const arg = argv[index] as string;
    if (arg === "--") return argv[index + 1] ?? null;
    if (arg !== "" && (!arg.startsWith("-") || arg === "-")) return arg;
  }
  return null;
}

/** Quotes a word for a POSIX shell only when it needs it. */
export function quoteShellWord(word: string): string {
  if (word === "") return "''";
  if (/^[A-Za-z0-9_\-./=:,@%+^]+$/.test(word)) return word;
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

function compileTargetPattern(target: Target): RegExp | null {
  if (!target.commandPattern) return null;
  try {
    return compilePattern(target.commandPattern);
  } catch (error) {
    // The loader rejects invalid patterns; this only guards hand-built scenarios.
    throw new ConfigError(describeError(error), "target.command_pattern");
  }
}

function findPatternSubcommand(pattern: RegExp | null, text: string): string | null {
  if (!pattern) return null;
  const match = pattern.exec(text);
  return match?.[1] ?? null;
}

/** The binary's base name as a whole shell word (a path prefix like `./bin/` is allowed). */
function compileBinaryWord(binary: string): RegExp {
  const name = binary.split("/").pop() || binary;
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return new RegExp(`(^|[\\s;&|(\`/])${escaped}(?=$|[\\s;&|)\`])`);
}

function findTargetStart(command: string, pattern: RegExp | null, binaryWord: RegExp | null): number | null {
  if (pattern) {
    const match = pattern.exec(command);
    return match ? match.index : null;
  }
  if (binaryWord) {
    const match = binaryWord.exec(command);
    if (!match) return null;
    // Step back over a path prefix so argv[0] is the word as typed.
    let start = match.index + (match[1] ?? "").length;
    while (start > 0 && !/[\s;&|(`]/.test(command[start - 1] as string)) start -= 1;
    return start;
  }
  return null;
}

/**
 * Splits the shell words from `start` up to the next unquoted control operator. Quotes and
 * backslashes are honoured; redirections (`>file`, `2>&1`, `<in`) are dropped. Best effort: it is
 * only used where the exact argv is not known.
 */
export function splitShellSegment(text: string, start = 0): string[] {
  const words: string[] = [];
  let word = "";
  let inWord = false;
  let skipNextWord = false;
  const endWord = () => {
    if (inWord) {
      if (skipNextWord) skipNextWord = false;
      else words.push(word);
    }
    word = "";
    inWord = false;
  };
  for (let pos = start; pos < text.length; pos += 1) {
    const char = text[pos] as string;
    if (char === "'") {
      const close = text.indexOf("'", pos + 1);
      const end = close === -1 ? text.length : close;
      word += text.slice(pos + 1, end);
      inWord = true;
      pos = end;
    } else if (char === '"') {
      inWord = true;
      for (pos += 1; pos < text.length && text[pos] !== '"'; pos += 1) {
        if (text[pos] === "\\" && pos + 1 < text.length && /["\\$`]/.test(text[pos + 1] as string)) pos += 1;
        word += text[pos];
      }
    } else if (char === "\\") {
      if (text[pos + 1] === "\n") {
        pos += 1; // line continuation
        continue;
      }
      if (pos + 1 < text.length) word += text[pos + 1];
      inWord = true;
      pos += 1;
    } else if (char === ">" || char === "<") {
      if (/^\d+$/.test(word)) {
        word = "";
        inWord = false;
      } else endWord();
      while (text[pos + 1] === ">" || text[pos + 1] === "&" || text[pos + 1] === "<") pos += 1;
      // `2>&1`: the target is a descriptor glued to the operator, not a word to skip.
      if (/\d/.test(text[pos + 1] ?? "") && text[pos] === "&") {
        while (/\d/.test(text[pos + 1] ?? "")) pos += 1;
      } else {
        skipNextWord = true;
      }
    } else if (
      char === ";" ||
      char === "&" ||
      char === "|" ||
      char === "\n" ||
      char === ")" ||
      char === "`"
    ) {
      break;
    } else if (char === " " || char === "\t" || char === "\r") {
      endWord();
    } else {
      word += char;
      inWord = true;
    }
  }
  endWord();
  return words;
}
