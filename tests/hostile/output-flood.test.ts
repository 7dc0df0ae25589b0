/**
 * A hostile agent floods its output: 200 MB to stdout (in lines, and as one line without a
 * newline), 200 MB to stderr, and a 200 MB file it then `cat`s. Through the real CLI with the
 * command agent, in local and bwrap modes: every trial ends by itself, not by its timeout, the output
 * cap holds (events.jsonl and transcript.md stay small, head and tail kept, the cut flagged
 * `truncated`), the CLI's own peak memory stays bounded, and the report is written.
 */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { Report } from "../../src/results/types.js";
import type { SandboxMode } from "../../src/scenario/types.js";
import type { TrialEvent } from "../../src/transcript/events.js";
import { findBwrapProblem } from "../support/processes.js";
import { CLI, ROOT } from "../support/run-cli.js";

const bwrapProblem = findBwrapProblem();
const FLOOD_BYTES = 200_000_000;
/**
 * Far beyond what a flood takes (seconds): a trial that ends by itself ends with `natural_stop`, one
 * the cap failed to stop would run into this. Wall-clock bounds are not asserted: a loaded machine
 * runs the four floods 5–7× slower.
 */
const TRIAL_TIMEOUT_S = 600;
/** The CLI's peak resident memory: generous, yet far below what holding the flood would take. */
const PEAK_RSS_LIMIT = 400 * 1024 * 1024;
/** events.jsonl and transcript.md: the 1 MiB streamed head and the tail, plus the events' framing. */
const OUTPUT_FILE_LIMIT = 3 * 1024 * 1024;

const a200 = `head -c ${FLOOD_BYTES} /dev/zero | tr '\\0' a`;
const FLOODS: Record<string, { script: string; stdout: boolean }> = {
  "stdout-lines": {
    script: `echo FLOOD-HEAD\nyes aaaaaaaaaaaaaaaaaaaaaaa | head -c ${FLOOD_BYTES}\necho FLOOD-TAIL`,
    stdout: true,
  },
  "stdout-one-line": { script: `printf FLOOD-HEAD\n${a200}\necho FLOOD-TAIL`, stdout: true },
  stderr: { script: `echo FLOOD-HEAD\n${a200} >&2\necho FLOOD-TAIL`, stdout: false },
  "file-then-cat": {
    script: `${a200} > big.txt\necho FLOOD-HEAD\ncat big.txt\necho\necho FLOOD-TAIL`,
    stdout: true,
  },
};

const folders: string[] = [];
afterAll(async () => {
  await Promise.all(folders.map((folder) => rm(folder, { recursive: true, force: true })));
});

async function writeSuite(): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "llm-tool-test-flood-suite-"));
  folders.push(dir);
  for (const [name, flood] of Object.entries(FLOODS)) {
    await mkdir(path.join(dir, name));
    await writeFile(
      path.join(dir, name, "scenario.yaml"),
      [
        `name: ${name.replaceAll("-", "_")}`,
        "description: An agent that floods its output",
        "category: hostile",
        "task: Flood.",
        "files:",
        `  flood.sh: ${JSON.stringify(flood.script)}`,
        "agent:",
        `  timeout: ${TRIAL_TIMEOUT_S}s`,
        "evaluation:",
        "  gates:",
        "    - type: file_exists",
        "      path: flood.sh",
        "",
      ].join("\n"),
    );
  }
  return dir;
}

/** Runs the CLI, sampling its peak resident memory (VmHWM) until it exits. */
function runCliMeasured(args: string[]): Promise<{ code: number | null; stderr: string; peakRss: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH ?? "/usr/bin:/bin",
        HOME: process.env.HOME ?? "/tmp",
        LANG: "C.UTF-8",
        TMPDIR: os.tmpdir(),
      },
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    let peakRss = 0;
    const sample = () => {
      try {
        const status = readFileSync(`/proc/${child.pid}/status`, "utf8");
        const kilobytes = Number(status.match(/^VmHWM:\s+(\d+) kB$/m)?.[1] ?? 0);
        peakRss = Math.max(peakRss, kilobytes * 1024);
      } catch {
        // Already gone: the last sample stands.
      }
    };
    const sampler = setInterval(sample, 25);
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    child.on("error", reject);
    child.on("exit", () => sample());
    child.on("close", (code) => {
      clearInterval(sampler);
      resolve({ code, stderr, peakRss });
    });
  });
}

async function runFloods(mode: SandboxMode) {
  const suite = await writeSuite();
  const out = await mkdtemp(path.join(os.tmpdir(), "llm-tool-test-flood-out-"));
  folders.push(out);
  const run = await runCliMeasured([
    "run",
    suite,
    "--agent",
    "command",
    "--agent-command",
    "bash flood.sh",
    "--sandbox",
    mode,
    "--out",
    out,
  ]);
  const report = JSON.parse(await readFile(path.join(out, "report.json"), "utf8")) as Report;
  return { run, report, out };
}

async function checkFloods(mode: SandboxMode): Promise<void> {
  const { run, report, out } = await runFloods(mode);
  expect(run.stderr).not.toMatch(/unexpected error|heap out of memory/i);
  expect(run.peakRss).toBeGreaterThan(0);
  expect(run.peakRss).toBeLessThan(PEAK_RSS_LIMIT);
  expect(report.scenarios).toHaveLength(Object.keys(FLOODS).length);
  for (const scenario of report.scenarios) {
    const name = scenario.id.replaceAll("_", "-");
    const flood = FLOODS[name];
    expect(flood, name).toBeDefined();
    const trial = scenario.trials[0]!;
    expect(trial.sandbox, name).toBe(mode);
    expect(trial.end_reason, name).toBe("natural_stop");
    const eventsPath = path.join(out, trial.events_path!);
    const transcriptPath = path.join(out, trial.transcript_path!);
    for (const file of [eventsPath, transcriptPath]) {
      expect((await stat(file)).size, `${name}: ${path.basename(file)}`).toBeLessThan(OUTPUT_FILE_LIMIT);
    }
    const events = (await readFile(eventsPath, "utf8"))
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as TrialEvent);
    const outputs = events.flatMap((event) => (event.type === "agent_output" ? [event] : []));
    const text = outputs.map((event) => event.text).join("\n");
    // Head and tail kept.
    expect(text.startsWith("FLOOD-HEAD"), name).toBe(true);
    expect(text.trimEnd().endsWith("FLOOD-TAIL"), name).toBe(true);
    const cuts = outputs.filter((event) => event.truncated === true);
    if (flood!.stdout) {
      expect(cuts, name).toHaveLength(1);
      expect(cuts[0]!.text, name).toMatch(/MB of output cut by llm-tool-test/);
    } else {
      // The stderr flood never reached the transcript.
      expect(cuts, name).toHaveLength(0);
      expect(text.length, name).toBeLessThan(100);
    }
  }
  const markdown = await stat(path.join(out, "report.md"));
  expect(markdown.size).toBeLessThan(OUTPUT_FILE_LIMIT);
}

describe("an agent that floods its output with 200 MB", () => {
  it("local mode: trials end, the cap holds, the CLI's memory stays bounded, the report is written", async () => {
    await checkFloods("local");
  }, 300_000);

  it.skipIf(bwrapProblem !== null)(
    "bwrap mode: the same",
    async () => {
      await checkFloods("bwrap");
    },
    300_000,
  );
});
