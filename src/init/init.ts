/**
 * `llm-tool-test init`: scaffolds a scenario folder for a command-line tool that passes `validate`
 * at once (and `validate --oracle` once the tool is installed): a scenario, a fixture folder, a
 * judge rubric, an AGENTS.md stub and the GitHub workflow.
 *
 * The workflow goes where GitHub reads it: `.github/workflows/llm-tool-test.yml` at the root of
 * the git repository that contains the scenario folder (found by looking for `.git` upwards from
 * it). Outside a git repository it goes to `<dir>/.github/workflows/` (a hidden folder, which the
 * scenario loader skips), with a warning to move it to the repository's root.
 */
import { lstat, mkdir, readFile, stat, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { ConfigError, InfraError } from "../errors.js";
import { runProcess } from "../sandbox/exec.js";
import { resolveRealBinary } from "../sandbox/shim.js";
import { ID_PATTERN } from "../scenario/format.js";
import { findRepositoryRoot } from "../scenario/repository-root.js";
import {
  renderFixtureReadme,
  renderGuidance,
  renderRubric,
  renderScenario,
  renderWorkflow,
  SCHEMA_BASE_URL,
  type ScenarioTemplate,
} from "./templates.js";

export const WORKFLOW_PATH = ".github/workflows/llm-tool-test.yml";
const DEFAULT_BRANCH = "main";
const PROBE_TIMEOUT_MS = 5_000;
/** Command names and paths that are safe in YAML, in a shell command line and as a file name. */
const BINARY_PATTERN = /^[\w.+@/-]+$/;

/** Runs `file args` and returns its exit code (anything that fails to start: non-zero). */
type ProbeBinary = (file: string, args: string[]) => Promise<number>;

export interface ScaffoldOptions {
  /** The tool: a command name looked up on PATH, or a path to it (relative to `cwd`). */
  binary: string;
  /** The scenario folder to write (relative to `cwd`); created when missing. */
  dir: string;
  /** Overwrite files that already exist. */
  force?: boolean;
  /** Base of relative paths; default process.cwd(). */
  cwd?: string;
  /** Where to look the binary up; default process.env.PATH. */
  searchPath?: string;
  /** The branch whose pushes the workflow runs on; default: the git remote's HEAD, else main. */
  defaultBranch?: string;
  /** Tries `--version`/`--help` on the installed binary; default runs it (5 s limit, no stdin). */
  probe?: ProbeBinary;
  /** The folder of the JSON Schemas this package ships; default the package's own schema/. */
  installedSchemas?: string;
}

export interface ScaffoldResult {
  /** Absolute paths of the files written, in the order written (the repository's .gitignore last, when extended). */
  files: string[];
  /** Things the user should know (binary not on PATH, workflow outside a repository). */
  warnings: string[];
  /** Absolute path of the workflow file (also in `files`). */
  workflow: string;
  /** The scenario id written. */
  scenarioId: string;
}

/** Writes the scaffold; refuses (ConfigError naming the file) to overwrite anything unless `force`. */
export async function scaffoldScenarios(options: ScaffoldOptions): Promise<ScaffoldResult> {
  const cwd = options.cwd ?? process.cwd();
  const binary = checkBinary(options.binary);
  const dir = path.resolve(cwd, options.dir);
  const command = path.basename(binary);
  const warnings: string[] = [];

  const dirInfo = await stat(dir).catch(() => undefined);
  if (dirInfo && !dirInfo.isDirectory()) {
    throw new ConfigError(
      "is a file; give a folder for the scenarios (it is created when missing)",
      displayPath(dir, cwd),
    );
  }

  const realBinary = await resolveRealBinary(binary, options.searchPath ?? process.env.PATH ?? "", cwd).catch(
    (error: unknown) => {
      if (error instanceof InfraError) return undefined;
      throw error;
    },
  );
  let flag: ScenarioTemplate["flag"] = "--version";
  if (!realBinary) {
    warnings.push(
      binary.includes("/")
        ? `${binary} does not exist or is not executable: build it before running the scenarios (the solution runs \`${command} --version\`)`
        : `${binary} is not on PATH: install it before running the scenarios (the solution runs \`${command} --version\`)`,
    );
  } else {
    flag = await pickFlag(realBinary, options.probe ?? probeWithProcess, warnings, command);
  }

  const repoRoot = await findRepositoryRoot(dir);
  const workflowBase = repoRoot ?? dir;
  if (!repoRoot) {
    warnings.push(
      `${displayPath(dir, cwd)} is not inside a git repository: the workflow was written to ${displayPath(path.join(dir, WORKFLOW_PATH), cwd)}; move it to ${WORKFLOW_PATH} at your repository's root`,
    );
  }
  const defaultBranch =
    options.defaultBranch ?? (repoRoot ? await readDefaultBranch(repoRoot) : DEFAULT_BRANCH);

  const slug = toSlug(command);
  const scenarioId = `${slug}_${flag === "--version" ? "version" : "help"}`;
  const targetBinary = binary.includes("/") ? relativeBinaryPath(dir, path.resolve(cwd, binary)) : binary;
  // The action resolves scenario paths against the repository root (its working-directory).
  const scenariosPath = toPosix(path.relative(repoRoot ?? cwd, dir)) || ".";

  const project = repoRoot ?? cwd;
  const schemas = options.installedSchemas ?? INSTALLED_SCHEMAS;
  const files: [string, string][] = [
    [
      path.join(dir, `${slug}-${flag === "--version" ? "version" : "help"}.yaml`),
      renderScenario({
        id: scenarioId,
        command,
        binary: targetBinary,
        flag,
        fixture: "fixtures/sample",
        rubric: "rubrics/quality.yaml",
        guidance: "AGENTS.md",
        schema: await schemaReference(path.join(schemas, "scenario.schema.json"), dir, project),
      }),
    ],
    [path.join(dir, "fixtures/sample/README.md"), renderFixtureReadme()],
    [
      path.join(dir, "rubrics/quality.yaml"),
      renderRubric(
        command,
        await schemaReference(path.join(schemas, "rubric.schema.json"), path.join(dir, "rubrics"), project),
      ),
    ],
    [path.join(dir, "AGENTS.md"), renderGuidance(command)],
    [
      path.join(workflowBase, WORKFLOW_PATH),
      renderWorkflow({ scenarios: scenariosPath, defaultBranch, command }),
    ],
  ];

  // All or nothing: check every file before writing any.
  if (!options.force) {
    for (const [file] of files) {
      if (await exists(file)) {
        throw new ConfigError(
          "already exists; llm-tool-test init does not overwrite files: move it away, choose another folder with --dir, or pass --force to overwrite",
          displayPath(file, cwd),
        );
      }
    }
  }
  for (const [file, text] of files) {
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, text);
  }
  const written = files.map(([file]) => file);
  const workflow = written[written.length - 1] as string;
  // Runs write under .llm-tool-test/ in the working directory: keep them out of the first commit.
  if (repoRoot && (await ignoreRunFolder(repoRoot))) written.push(path.join(repoRoot, ".gitignore"));
  return { files: written, warnings, workflow, scenarioId };
}

function checkBinary(value: string): string {
  const binary = value.trim();
  const name = path.basename(binary);
  if (
    binary === "" ||
    !BINARY_PATTERN.test(binary) ||
    name.startsWith("-") ||
    name === "." ||
    name === ".."
  ) {
    throw new ConfigError(
      `${JSON.stringify(value)} is not a command name: give the name of the tool on PATH (e.g. git) or a path to it (e.g. ./bin/my-tool); letters, digits and . _ + @ - / only`,
      "binary",
    );
  }
  return binary;
}

/** `--version` when it exits 0, else `--help` when that does, else `--version` with a warning. */
async function pickFlag(
  file: string,
  probe: ProbeBinary,
  warnings: string[],
  command: string,
): Promise<ScenarioTemplate["flag"]> {
  if ((await probe(file, ["--version"])) === 0) return "--version";
  if ((await probe(file, ["--help"])) === 0) return "--help";
  warnings.push(
    `neither \`${command} --version\` nor \`${command} --help\` exits 0: edit the scenario's solution and gates before validating with --oracle`,
  );
  return "--version";
}

const probeWithProcess: ProbeBinary = async (file, args) => {
  try {
    const result = await runProcess({
      file,
      args,
      cwd: os.tmpdir(),
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: os.tmpdir(), LANG: "C.UTF-8" },
      timeoutMs: PROBE_TIMEOUT_MS,
      outputCapBytes: 64 * 1024,
    });
    return result.exit_code;
  } catch {
    return 127;
  }
};

const RUN_FOLDER_PATTERN = ".llm-tool-test/";

/** Adds `.llm-tool-test/` to the repository's .gitignore unless it is there; true when it wrote. */
async function ignoreRunFolder(repoRoot: string): Promise<boolean> {
  const file = path.join(repoRoot, ".gitignore");
  const current = await readFile(file, "utf8").catch(() => "");
  const lines = current.split(/\r?\n/).map((line) => line.trim());
  if (
    lines.some(
      (line) => line === RUN_FOLDER_PATTERN || line === ".llm-tool-test" || line === "/.llm-tool-test/",
    )
  )
    return false;
  const separator = current === "" || current.endsWith("\n") ? "" : "\n";
  await writeFile(
    file,
    `${current}${separator}# llm-tool-test runs (reports, transcripts)\n${RUN_FOLDER_PATTERN}\n`,
  );
  return true;
}

/** The schemas this package ships (src/init/ and lib/init/ are both two levels below the package root). */
const INSTALLED_SCHEMAS = path.resolve(import.meta.dirname, "../../schema");

/**
 * The `$schema` an editor resolves for a file in `from`: the installed package's copy when it lives
 * inside the project (`npm install llm-tool-test`: `../node_modules/llm-tool-test/schema/...`), so
 * the schema matches the version that loads the file; else (npx from a cache, a global install)
 * the published one.
 */
async function schemaReference(installed: string, from: string, project: string): Promise<string> {
  if (isInside(project, installed) && (await exists(installed))) {
    return toPosix(path.relative(from, installed));
  }
  return `${SCHEMA_BASE_URL}/${path.basename(installed)}`;
}

function isInside(folder: string, file: string): boolean {
  const relative = path.relative(folder, file);
  return relative !== "" && !relative.startsWith("..") && !path.isAbsolute(relative);
}

/** The remote's default branch (`origin/HEAD`), else the current branch if main or master, else main. */
async function readDefaultBranch(repoRoot: string): Promise<string> {
  const read = (file: string) => readFile(path.join(repoRoot, ".git", file), "utf8").catch(() => "");
  const remote = /^ref: refs\/remotes\/origin\/(.+)$/m.exec(await read("refs/remotes/origin/HEAD"));
  if (remote?.[1]) return remote[1].trim();
  const current = /^ref: refs\/heads\/(.+)$/m.exec(await read("HEAD"))?.[1]?.trim();
  return current === "main" || current === "master" ? current : DEFAULT_BRANCH;
}

/** A scenario id prefix from a command name (ids allow letters, digits, `.`, `_` and `-`). */
function toSlug(command: string): string {
  const slug = command.replace(/[^A-Za-z0-9._-]+/g, "-").replace(/^[^A-Za-z0-9]+/, "");
  return ID_PATTERN.test(slug) ? slug : "tool";
}

/** `target.binary` is resolved against the scenario file's folder, and must contain a slash. */
function relativeBinaryPath(dir: string, absolute: string): string {
  const relative = toPosix(path.relative(dir, absolute));
  return relative.includes("/") ? relative : `./${relative}`;
}

function toPosix(file: string): string {
  return file.split(path.sep).join("/");
}

async function exists(file: string): Promise<boolean> {
  return lstat(file).then(
    () => true,
    () => false,
  );
}

function displayPath(file: string, cwd: string): string {
  const relative = path.relative(cwd, file);
  return relative && !relative.startsWith("..") && !path.isAbsolute(relative) ? relative : file;
}
