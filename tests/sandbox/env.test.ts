import { describe, expect, it } from "vitest";
import { buildAgentEnvironment } from "../../src/sandbox/env.js";

const parentEnv = {
  PATH: "/usr/local/bin:/usr/bin:/bin",
  HOME: "/root",
  USER: "root",
  LANG: "en_US.UTF-8",
  TZ: "Europe/Paris",
  SHELL: "/bin/zsh",
  ANTHROPIC_API_KEY: "sk-ant-canary-0001",
  GITHUB_TOKEN: "ghp_canary_0002",
  ACTIONS_RUNTIME_TOKEN: "actions-canary-0003",
  MY_SERVICE_PASSWORD: "hunter2-canary",
  EDITOR: "vim",
};

describe("buildAgentEnvironment", () => {
  it("builds the environment from scratch", () => {
    const env = buildAgentEnvironment({
      parentEnv,
      homeDir: "/work/dir",
      tmpDir: "/work/tmp",
      pathPrefix: ["/shim"],
      targetEnv: { MY_TOOL_HOME: ".my-tool" },
      extra: { FROM_DRIVER: "1" },
    });
    expect(env).toEqual({
      PATH: "/shim:/usr/local/bin:/usr/bin:/bin",
      HOME: "/work/dir",
      TMPDIR: "/work/tmp",
      USER: "agent",
      LOGNAME: "agent",
      LANG: "en_US.UTF-8",
      LC_ALL: "en_US.UTF-8",
      TERM: "dumb",
      NO_COLOR: "1",
      TZ: "Europe/Paris",
      MY_TOOL_HOME: ".my-tool",
      FROM_DRIVER: "1",
    });
  });

  it("falls back to C.UTF-8 when the parent has no UTF-8 locale, and omits an unset TZ", () => {
    const env = buildAgentEnvironment({
      parentEnv: { PATH: "/bin", LANG: "C", LC_ALL: "POSIX" },
      homeDir: "/h",
      tmpDir: "/t",
      targetEnv: {},
      basePath: "/sandbox/bin",
      userName: "eval",
    });
    expect(env.LANG).toBe("C.UTF-8");
    expect(env.LC_ALL).toBe("C.UTF-8");
    expect(env.PATH).toBe("/sandbox/bin");
    expect(env.USER).toBe("eval");
    expect("TZ" in env).toBe(false);
  });

  it("never passes a parent secret, even when the scenario or a driver lists it", () => {
    const env = buildAgentEnvironment({
      parentEnv,
      homeDir: "/h",
      tmpDir: "/t",
      targetEnv: { ANTHROPIC_API_KEY: "sk-ant-canary-0001", TOOL_URL: "https://x/?t=ghp_canary_0002" },
      extra: { GITHUB_TOKEN: "ghp_canary_0002", FAKE_SERVICE_TOKEN: "test-token-literal" },
    });
    const text = JSON.stringify(env);
    for (const canary of ["sk-ant-canary-0001", "ghp_canary_0002", "actions-canary-0003", "hunter2-canary"]) {
      expect(text).not.toContain(canary);
    }
    expect(env.ANTHROPIC_API_KEY).toBeUndefined();
    expect(env.TOOL_URL).toBeUndefined();
    // A literal value the scenario author wrote (a token for a fake service) is theirs to pass.
    expect(env.FAKE_SERVICE_TOKEN).toBe("test-token-literal");
    expect(env.SHELL).toBeUndefined();
    expect(env.EDITOR).toBeUndefined();
  });
});
