/**
 * The package as a new user gets it: `npm pack`, then the README's quick start in an empty git
 * repository, the install taking the tarball instead of the registry's copy (its dependencies
 * still come from the registry: this test needs registry access). One install serves every case.
 * The first ten minutes: install, init, edit nothing, validate --oracle, run, open report.html.
 */
import { existsSync } from "node:fs";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Report } from "../../src/results/types.js";
import { chromiumAvailable, launchChromium } from "../support/chromium.js";
import {
  type CommandResult,
  createEmptyProject,
  formatMegabytes,
  installTarball,
  measureFootprint,
  packTarball,
  ROOT,
  runCommand,
  userEnv,
} from "../support/installed-package.js";

const INSTALL_TIMEOUT = 300_000;
const FOOTPRINT_LIMIT_BYTES = 50e6;
/** The README's stand-in for the user's tool; here a tool every machine has. */
const PLACEHOLDER_TOOL = "my-tool";
const TOOL = "git";

/** The commands of the README's quick start (its first `sh` block), without comments. */
async function readQuickStart(): Promise<string[]> {
  const readme = await readFile(path.join(ROOT, "README.md"), "utf8");
  const section = readme.slice(readme.indexOf("## Quick start"));
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1] ?? "";
  return block
    .split("\n")
    .map((line) => line.replace(/\s+#.*$/, "").trim())
    .filter((line) => line !== "" && !line.startsWith("#"));
}

/** A quick-start line as the user's shell runs it; npx must use the installed package, never fetch one. */
function runLine(project: string, line: string): Promise<CommandResult> {
  return runCommand("sh", ["-c", line.replaceAll(PLACEHOLDER_TOOL, TOOL)], {
    cwd: project,
    env: { ...userEnv(), npm_config_yes: "false" },
  });
}

/** npx's own warnings (a machine's npm configuration) come before the CLI's output. */
function withoutNpmWarnings(text: string): string {
  return text
    .split("\n")
    .filter((line) => !/^npm (warn|notice)\b/.test(line))
    .join("\n");
}

// Offline (no registry), LLM_TOOL_TEST_OFFLINE=1 skips this file, and says so in its title.
const offline = process.env.LLM_TOOL_TEST_OFFLINE === "1";

describe.skipIf(offline)(
  offline
    ? "the packed package, installed — SKIPPED: LLM_TOOL_TEST_OFFLINE=1 (it needs the npm registry)"
    : "the packed package, installed as the README's quick start says",
  () => {
    let temp: string;
    let project: string;
    let quickStart: string[];

    beforeAll(async () => {
      temp = await mkdtemp(path.join(os.tmpdir(), "ltt-installed-"));
      project = path.join(temp, "project");
      quickStart = await readQuickStart();
      // lib/ was compiled by tests/global-setup.ts; pack it as it is.
      const tarball = await packTarball(temp, { build: false });
      await createEmptyProject(project);
      const install = quickStart[0] ?? "";
      expect(install).toBe("npm install --save-dev llm-tool-test");
      await installTarball(project, tarball);
    }, INSTALL_TIMEOUT);

    afterAll(async () => {
      if (temp) await rm(temp, { recursive: true, force: true });
    });

    it("the quick start is at most five commands, all of the installed package", () => {
      expect(quickStart.length).toBeLessThanOrEqual(5);
      for (const line of quickStart.slice(1)) expect(line).toMatch(/^npx llm-tool-test /);
    });

    it(`installs under ${formatMegabytes(FOOTPRINT_LIMIT_BYTES)} of node_modules, with the model SDK and without the action's libraries`, async () => {
      const footprint = await measureFootprint(project);
      expect(footprint.bytes, JSON.stringify(footprint.largest)).toBeLessThan(FOOTPRINT_LIMIT_BYTES);
      const modules = path.join(project, "node_modules");
      expect(existsSync(path.join(modules, "@anthropic-ai/sdk/package.json"))).toBe(true);
      expect(existsSync(path.join(modules, "@actions"))).toBe(false);
      // Installing builds nothing: lib/ is in the tarball and no install script runs.
      const installed = JSON.parse(
        await readFile(path.join(modules, "llm-tool-test/package.json"), "utf8"),
      ) as {
        scripts?: Record<string, string>;
      };
      for (const hook of ["preinstall", "install", "postinstall", "prepare"])
        expect(installed.scripts?.[hook], hook).toBeUndefined();
      // The files list (docs/releasing.md): what the CLI and the library need, nothing else.
      const shipped = (await readdir(path.join(modules, "llm-tool-test"))).filter(
        (f) => !/^LICEN[CS]E/i.test(f),
      );
      expect(shipped.sort()).toEqual(["README.md", "bin", "docs", "lib", "package.json", "schema"]);
      // README.md's links into docs/ resolve in the installed package too.
      const readme = await readFile(path.join(modules, "llm-tool-test/README.md"), "utf8");
      const docLinks = [...readme.matchAll(/\]\((docs\/[^)#]+)/g)].map((m) => m[1] as string);
      expect(docLinks.length).toBeGreaterThan(0);
      for (const link of docLinks)
        expect(existsSync(path.join(modules, "llm-tool-test", link)), link).toBe(true);
      expect(existsSync(path.join(modules, "llm-tool-test/lib/cli/main.js"))).toBe(true);
      expect(existsSync(path.join(modules, "llm-tool-test/lib/index.js"))).toBe(true);
      expect(existsSync(path.join(modules, "llm-tool-test/lib/action"))).toBe(false);
    });

    let runReport = "";

    it("the first ten minutes: init, edit nothing, validate --oracle, run; the schema path resolves", async () => {
      const [, init, validate, run, ...rest] = quickStart;
      expect(rest).toEqual([]);
      const scaffold = await runLine(project, init as string);
      expect(scaffold.code, scaffold.stderr).toBe(0);
      expect(existsSync(path.join(project, ".github/workflows/llm-tool-test.yml"))).toBe(true);
      const scenarioFile = path.join(project, "scenarios", `${TOOL}-version.yaml`);
      const schema = /\$schema=(\S+)/.exec(await readFile(scenarioFile, "utf8"))?.[1] as string;
      expect(schema).toBe("../node_modules/llm-tool-test/schema/scenario.schema.json");
      expect(existsSync(path.resolve(path.dirname(scenarioFile), schema))).toBe(true);

      const checked = await runLine(project, validate as string);
      expect(checked.code, checked.stdout + checked.stderr).toBe(0);
      expect(checked.stdout).toContain("solution passes; doing nothing fails");

      const ran = await runLine(project, run as string);
      expect(ran.code, ran.stdout + ran.stderr).toBe(0);
      // No key here: the run says it used no model, first and in the summary.
      const fallback = "agent: oracle — no ANTHROPIC_API_KEY set; this run used no model";
      expect(withoutNpmWarnings(ran.stderr).split("\n")[0]).toBe(fallback);
      expect(ran.stdout).toContain(fallback);
      const reportMd = /^Report: (\S+)/m.exec(ran.stdout)?.[1] as string;
      runReport = path.join(project, path.dirname(reportMd), "report.json");
      const report = JSON.parse(await readFile(runReport, "utf8")) as Report;
      expect(report.summary.outcome).toBe("pass");
      expect(report.run.agent_reason).toBe("no ANTHROPIC_API_KEY set; this run used no model");
    }, 120_000);

    it.skipIf(!chromiumAvailable)(
      "report.html shows the run's outcome and a trial's transcript in Chromium",
      async () => {
        expect(runReport).not.toBe("");
        const browser = await launchChromium();
        try {
          const page = await browser.newPage();
          const errors: string[] = [];
          page.on("pageerror", (error) => errors.push(error.message));
          await page.goto(pathToFileURL(path.join(path.dirname(runReport), "report.html")).href);
          // The page leads with the decision (fail-on outcome without a baseline); the run's own badge beside it.
          expect(await page.locator("h1").textContent()).toMatch(/Passed/);
          expect(await page.locator(".kicker .badge").textContent()).toBe("pass");
          expect(await page.locator("body").textContent()).toContain("oracle");
          await page.click(`#scenario-table button.chip[data-trial="0"]`);
          const viewer = page.locator("dialog#trial-viewer");
          await expect
            .poll(() => viewer.evaluate((d) => (d as unknown as { open: boolean }).open))
            .toBe(true);
          expect(await viewer.locator(".step.command .cmd-line").allTextContents()).toEqual([
            `$ ${TOOL} --version > version.txt`,
          ]);
          expect(errors).toEqual([]);
        } finally {
          await browser.close();
        }
      },
      120_000,
    );

    it("report, compare, merge and list work on the run, and the library loads", async () => {
      expect(runReport).not.toBe("");
      const npx = (args: string[]) =>
        runCommand("npx", ["llm-tool-test", ...args], {
          cwd: project,
          env: { ...userEnv(), npm_config_yes: "false" },
        });
      const markdown = await npx(["report", runReport, "--format", "md"]);
      expect(markdown.code, markdown.stderr).toBe(0);
      expect(markdown.stdout).toContain(`${TOOL}_version`);
      const compared = await npx(["compare", runReport, runReport]);
      expect(compared.code, compared.stderr).toBe(0);
      expect(compared.stdout).toContain("1 scenario");
      const merged = await npx(["merge", runReport, "--out", "merged"]);
      expect(merged.code, merged.stderr).toBe(0);
      expect(existsSync(path.join(project, "merged/report.html"))).toBe(true);
      const listed = await npx(["list"]);
      expect(listed.stdout).toContain(`${TOOL}_version`);
      // The library's entry loads with the installed dependencies alone.
      const library = await runCommand(
        process.execPath,
        [
          "--input-type=module",
          "-e",
          'const m = await import("llm-tool-test"); console.log([m.runSuite, m.createAnthropicClient, m.createOpenAiClient, m.createProviderRouter].map((f) => typeof f).join(" "));',
        ],
        { cwd: project, env: userEnv() },
      );
      expect(library.stdout.trim(), library.stderr).toBe("function function function function");
    }, 120_000);
  },
);
