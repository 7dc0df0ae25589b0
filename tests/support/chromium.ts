/**
 * Headless Chromium for the tests that open a page (Debian's `chromium` package, driven by
 * playwright-core): where it is, whether it is there, and one way to launch it.
 */
import { existsSync } from "node:fs";
import { type Browser, chromium } from "playwright-core";

const CHROMIUM = process.env.LLM_TOOL_TEST_CHROMIUM ?? "/usr/bin/chromium";
export const chromiumAvailable = existsSync(CHROMIUM);
/** Said in a skipped suite's title: what is missing and how to get it. */
export const CHROMIUM_MISSING = `no Chromium at ${CHROMIUM} (install it with \`apt-get install -y chromium\`, or set LLM_TOOL_TEST_CHROMIUM)`;

/** Headless, offline (no background requests), no first-run pages. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
    ],
  });
}
