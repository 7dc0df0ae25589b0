/**
 * A vitest reporter: the slowest test files by their whole time in a worker, setup file, import
 * (collection) and every test and hook (a file-level beforeAll included), which the JSON reporter's
 * per-file start and end times leave out. `.ci/run` adds it after the default reporter; alone:
 *   npx vitest run <files> --reporter=default --reporter=./scripts/slowest-test-files.ts
 * SLOWEST_TEST_FILES sets how many are listed (25).
 */
import path from "node:path";
import type { Reporter, TestModule } from "vitest/node";

interface FileTime {
  file: string;
  project: string;
  totalMs: number;
  importMs: number;
  testsMs: number;
  tests: number;
}

export default class SlowestTestFiles implements Reporter {
  private readonly files: FileTime[] = [];

  onTestModuleEnd(module: TestModule): void {
    const diagnostic = module.diagnostic();
    this.files.push({
      file: path.relative(process.cwd(), module.moduleId),
      project: module.project.name,
      totalMs:
        diagnostic.environmentSetupDuration +
        diagnostic.prepareDuration +
        diagnostic.setupDuration +
        diagnostic.collectDuration +
        diagnostic.duration,
      importMs: diagnostic.collectDuration,
      testsMs: diagnostic.duration,
      tests: [...module.children.allTests()].length,
    });
  }

  onTestRunEnd(): void {
    const shown = Number(process.env.SLOWEST_TEST_FILES ?? 25);
    const slowest = [...this.files].sort((a, b) => b.totalMs - a.totalMs).slice(0, shown);
    const sum = this.files.reduce((total, file) => total + file.totalMs, 0);
    const seconds = (ms: number) => (ms / 1000).toFixed(1).padStart(6);
    const lines = [
      `\nslowest test files (whole time in a worker; import, tests and hooks), ${this.files.length} files, ${(sum / 1000).toFixed(0)} s in all:`,
      "   total  import  tests+hooks  tests  file",
      ...slowest.map(
        (file) =>
          `  ${seconds(file.totalMs)}  ${seconds(file.importMs)}  ${seconds(file.testsMs)}      ${String(file.tests).padStart(5)}  ${file.file} (${file.project})`,
      ),
    ];
    process.stdout.write(`${lines.join("\n")}\n`);
  }
}
