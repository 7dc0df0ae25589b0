import { describe, expect, it } from "vitest";
import {
  collectSecretValues,
  createSecretRedactor,
  isSecretName,
  redactSecrets,
} from "../../src/sandbox/secrets.js";

describe("isSecretName", () => {
  it.each([
    "ANTHROPIC_API_KEY",
    "anthropic_base_url",
    "OPENAI_ORG",
    "GITHUB_TOKEN",
    "gh_token",
    "ACTIONS_RUNTIME_TOKEN",
    "ACTIONS_ID_TOKEN_REQUEST_URL",
    "AWS_REGION",
    "MY_API_KEY",
    "npm_config__authToken",
    "DB_PASSWORD",
    "FTP_PASSWD",
    "GOOGLE_APPLICATION_CREDENTIALS",
    "BASIC_AUTH",
    "SESSION_COOKIE",
    "SSH_PRIVATE",
    "CLIENT_SECRET",
    "DB_PASS",
    "HTTP_AUTHORIZATION",
    "SERVICE_APIKEY",
    "DEPLOY_KEYS",
  ])("%s is secret", (name) => {
    expect(isSecretName(name)).toBe(true);
  });

  it.each([
    "PATH",
    "HOME",
    "LANG",
    "TZ",
    "GITHUB_REPOSITORY",
    "MY_TOOL_HOME",
    "RUNNER_OS",
    // Whole words only: these merely contain AUTH or KEY.
    "GIT_AUTHOR_NAME",
    "GIT_AUTHOR_EMAIL",
    "KEYBOARD_LAYOUT",
  ])("%s is not secret", (name) => {
    expect(isSecretName(name)).toBe(false);
  });
});

describe("collectSecretValues", () => {
  it("takes values of secret-named variables of at least 6 characters, longest first", () => {
    const values = collectSecretValues({
      ANTHROPIC_API_KEY: "sk-ant-123456",
      GITHUB_TOKEN: "ghp_abcdefghijklmnop",
      SHORT_TOKEN: "abc",
      PATH: "/usr/bin:/bin",
      UNSET_TOKEN: undefined,
      COPY_TOKEN: "sk-ant-123456",
    });
    expect(values).toEqual(["ghp_abcdefghijklmnop", "sk-ant-123456"]);
  });
});

describe("redactSecrets", () => {
  it("replaces every occurrence of every value", () => {
    const secrets = ["s3cr3t-value", "another-one"];
    expect(redactSecrets("a s3cr3t-value b another-one c s3cr3t-value", secrets)).toBe(
      "a [REDACTED] b [REDACTED] c [REDACTED]",
    );
  });

  it("treats values literally (regex characters) and prefers the longest match", () => {
    const secrets = ["a.b*c(d)", "a.b*c(d)+more"];
    expect(redactSecrets("x a.b*c(d)+more y a.b*c(d) z aXb", secrets)).toBe(
      "x [REDACTED] y [REDACTED] z aXb",
    );
  });

  it("also replaces the JSON-escaped form of a value", () => {
    const secret = 'line1\nline2"quoted"';
    const json = JSON.stringify({ text: `before ${secret} after` });
    expect(redactSecrets(json, [secret])).toBe(JSON.stringify({ text: "before [REDACTED] after" }));
  });

  it("leaves text alone without secrets and ignores too-short values", () => {
    expect(redactSecrets("nothing here", [])).toBe("nothing here");
    expect(createSecretRedactor(["abc"])("abc abc")).toBe("abc abc");
  });

  it("handles large text with many values", () => {
    const secrets = Array.from({ length: 300 }, (_, index) => `secret-value-${index}-xyz`);
    const text = `${"lorem ipsum ".repeat(200_000)}secret-value-299-xyz ${"dolor ".repeat(100_000)}secret-value-7-xyz`;
    const redacted = redactSecrets(text, secrets);
    expect(redacted).not.toContain("secret-value-");
    expect(redacted.match(/\[REDACTED\]/g)).toHaveLength(2);
  });
});
