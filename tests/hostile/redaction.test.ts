/**
 * A hostile reference solution prints credentials every way it can: canaries of each known shape
 * from a fixture file, and secrets the scenario's author wrote into the target's env (a password
 * inside a DATABASE_URL, a Slack webhook, a Stripe key under names that do not look secret) plain,
 * reversed and base64-encoded, to stdout, stderr and a file the gates quote. None may appear in any
 * output: events.jsonl, transcript.md, result.json, report.json/md/html, junit.xml, stdout, stderr.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { runMain } from "../cli/run-main.js";
import { findLeaks, readOutputTree } from "../support/leaks.js";
import { findBwrapProblem } from "../support/processes.js";
import { makeTempDir } from "../support/temp-dirs.js";

/** Canaries of each shape, in a fixture file the agent prints; distinctive, never real. */
const SHAPED_CANARIES: Record<string, string> = {
  anthropic: "sk-ant-api03-Hq7Zx2Vb9Lm4Tn8Kp3Wc6Yd1Rf5Gs0Je-CANARYAA",
  openai: "sk-proj-Kp3Wc6Yd1Rf5Gs0JeHq7Zx2Vb9Lm4Tn8_canary",
  github: "ghp_Wc6Yd1Rf5Gs0JeHq7Zx2Vb9Lm4Tn8Kp3Canary",
  githubPat: "github_pat_11CANARY0_Yd1Rf5Gs0JeHq7Zx2Vb9Lm4Tn8Kp3Wc6AbCd",
  slackToken: "xoxb-1234-5678-Rf5Gs0JeHq7Zx2Vb9Lm4",
  aws: "AKIAHQ7ZX2VB9LM4TN8K",
  stripe: "sk_live_51Gs0JeHq7Zx2Vb9Lm4Tn8Kp3Wc6",
  jwt: "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJjYW5hcnktand0In0.Je5Hq7Zx2Vb9Lm4Tn8Kp3Wc6Yd1Rf",
  urlPassword: "Tn8Kp3Wc6Yd1Rf5Gs0Je",
};

/** What the scenario's author wrote into target.env: the agent sees these. */
const DATABASE_PASSWORD = "Zx2Vb9Lm4Tn8Kp3Wc6Yd-dbpass";
const TARGET_ENV = {
  DATABASE_URL: `postgres://app:${DATABASE_PASSWORD}@db.internal:5432/orders`,
  SLACK_WEBHOOK: "https://hooks.slack.com/services/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",
  STRIPE_SK: "sk_live_51Lm4Tn8Kp3Wc6Yd1Rf5Gs0JeHq7",
};
const ENCODED_CANARIES: Record<string, string> = {
  "DATABASE_URL's password": DATABASE_PASSWORD,
  SLACK_WEBHOOK: TARGET_ENV.SLACK_WEBHOOK.replace("https://", ""),
  STRIPE_SK: TARGET_ENV.STRIPE_SK,
};

const SOLUTION = [
  "cat secrets.txt",
  'echo "$DATABASE_URL"; echo "$DATABASE_URL" | rev; echo "$DATABASE_URL" | base64; printf "pw=%s" "$DATABASE_URL" | base64 -w 0; echo',
  // Long enough that base64 wraps the encoded value over two lines.
  'printf "%s %s %s" "$DATABASE_URL" "$SLACK_WEBHOOK" "$STRIPE_SK" | base64',
  'for v in "$SLACK_WEBHOOK" "$STRIPE_SK"; do echo "$v"; echo "$v" | rev; echo "$v" | base64; printf "%s" "$v" | base64 | tr "+/" "-_"; done',
  '{ cat secrets.txt; echo "$DATABASE_URL" | rev; echo "$STRIPE_SK" | base64; } > leak.txt; cat leak.txt >&2',
];

function writeScenario(dir: string): void {
  mkdirSync(path.join(dir, "fixture"), { recursive: true });
  const lines = Object.entries(SHAPED_CANARIES).map(([name, value]) =>
    name === "urlPassword" ? `${name}: https://deploy:${value}@git.internal/repo.git` : `${name}: ${value}`,
  );
  writeFileSync(path.join(dir, "fixture", "secrets.txt"), `${lines.join("\n")}\n`);
  const yaml = [
    "name: leaky",
    "description: prints every credential it can find",
    "task: Print the credentials.",
    "fixture: fixture",
    "target:",
    "  env:",
    ...Object.entries(TARGET_ENV).map(([name, value]) => `    ${name}: ${JSON.stringify(value)}`),
    "solution:",
    ...SOLUTION.map((command) => `  - ${JSON.stringify(command)}`),
    "evaluation:",
    "  gates:",
    "    - type: file_contains",
    "      path: leak.txt",
    "      substring: never-there",
    "    - type: command_succeeds",
    "      command: 'cat leak.txt; echo \"$DATABASE_URL\" | base64; exit 1'",
    "    - type: stderr_empty",
  ].join("\n");
  writeFileSync(path.join(dir, "leaky.yaml"), `${yaml}\n`);
}

const bwrapProblem = findBwrapProblem();

describe.each([
  { mode: "local", skip: false },
  { mode: "bwrap", skip: bwrapProblem !== null },
])("no credential reaches any output ($mode)", ({ mode, skip }) => {
  let outputs: Record<string, string> = {};

  beforeAll(async () => {
    if (skip) return;
    const dir = makeTempDir("ltt-hostile-redaction-");
    writeScenario(path.join(dir, "scenarios"));
    const out = path.join(dir, "out");
    const result = await runMain(
      [
        "run",
        path.join(dir, "scenarios"),
        "--agent",
        "oracle",
        "--sandbox",
        mode,
        "--out",
        out,
        "--trials",
        "1",
      ],
      { cwd: dir },
    );
    outputs = { ...(await readOutputTree(out)), stdout: result.stdout, stderr: result.stderr };
  }, 120_000);

  it.skipIf(skip)("writes every output, with the secrets printed and redacted", () => {
    for (const file of ["report.json", "report.md", "report.html", "junit.xml"]) {
      expect(Object.keys(outputs)).toContain(file);
    }
    const events = Object.entries(outputs).find(([name]) => name.endsWith("events.jsonl"))?.[1] ?? "";
    // The solution ran and printed: the URL is there with its password replaced.
    expect(events).toContain("postgres://app:[REDACTED]@db.internal:5432/orders");
    expect(events.match(/\[REDACTED\]/g)?.length ?? 0).toBeGreaterThan(20);
    // The gates quoted the leaking file and stderr.
    expect(outputs["report.md"]).toContain("[REDACTED]");
  });

  it.skipIf(skip)("has no canary, plain, reversed or base64-encoded, in any output", () => {
    expect(findLeaks(outputs, { ...SHAPED_CANARIES, ...ENCODED_CANARIES })).toEqual([]);
  });
});
