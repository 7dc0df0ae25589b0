/** Where bwrap's shim covers the target (shim-cover.ts), planned from the host's real files. */
import { chmodSync, mkdirSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { planShimCover, SANDBOX_REAL_DIR } from "../../src/sandbox/shim-cover.js";
import { makeTempDir } from "../support/temp-dirs.js";

describe("planShimCover", () => {
  it("covers a system binary at its real path and runs it from the shim's own folder", async () => {
    const jq = realpathSync("/usr/bin/jq");
    const cover = await planShimCover("/usr/bin/jq", "/tmp/llm-tool-test-x", []);
    expect(cover?.coveredPaths).toContain(jq);
    expect(cover?.realInside).toBe(path.posix.join(SANDBOX_REAL_DIR, jq));
    // Its whole system folder, so what it finds relative to itself (`../lib`, `../share`) is there.
    const top = `/${jq.split("/")[1]}`;
    expect(cover?.realBinds).toEqual([{ from: top, to: path.posix.join(SANDBOX_REAL_DIR, top) }]);
  });

  it("follows a link to the real file and binds an npm package's node_modules whole", async () => {
    const dir = realpathSync(makeTempDir("ltt-cover-"));
    const script = path.join(dir, "node_modules", "pkg", "bin", "tool.js");
    mkdirSync(path.dirname(script), { recursive: true });
    writeFileSync(script, "#!/usr/bin/env node\n");
    chmodSync(script, 0o755);
    mkdirSync(path.join(dir, "node_modules", ".bin"));
    const link = path.join(dir, "node_modules", ".bin", "tool");
    symlinkSync("../pkg/bin/tool.js", link);
    const cover = await planShimCover(link, "/tmp/llm-tool-test-x", [path.dirname(link)]);
    expect(cover?.coveredPaths).toEqual([script]);
    expect(cover?.realBinds).toEqual([
      {
        from: path.join(dir, "node_modules"),
        to: path.posix.join(SANDBOX_REAL_DIR, dir, "node_modules"),
      },
    ]);
  });

  it("leaves uncovered what the shim itself runs on (bash, env), and covers base64 (its records need none)", async () => {
    expect(await planShimCover("/usr/bin/env", "/tmp/llm-tool-test-x", [])).toBeNull();
    expect(await planShimCover("/bin/bash", "/tmp/llm-tool-test-x", [])).toBeNull();
    expect((await planShimCover("/usr/bin/base64", "/tmp/llm-tool-test-x", []))?.coveredPaths).toContain(
      "/usr/bin/base64",
    );
  });
});
