import { escapePlainText } from "../render/escape.js";
import type { ProgressEvent } from "../run/suite.js";

export interface ProgressStream {
  isTTY?: boolean;
  columns?: number;
  write(text: string): unknown;
}

/**
 * Progress while a run goes: on a terminal, one live status line (trials done, running trials
 * with their turn, elapsed); elsewhere (CI logs) one quiet line per finished trial.
 */
export function createProgressReporter(stream: ProgressStream, now: () => number = Date.now) {
  const startedAt = now();
  const running = new Map<string, number>();
  let total = 0;
  let done = 0;
  let lastLength = 0;
  const elapsed = () => `${Math.round((now() - startedAt) / 1000)}s`;

  const redraw = () => {
    if (!stream.isTTY) return;
    const active = [...running.entries()].map(([key, turn]) => (turn > 0 ? `${key} (turn ${turn})` : key));
    let line = `[${done}/${total}] ${elapsed()}  ${active.join(", ")}`;
    const width = (stream.columns ?? 100) - 1;
    if (line.length > width) line = `${line.slice(0, width - 1)}…`;
    stream.write(`\r${line}${" ".repeat(Math.max(0, lastLength - line.length))}`);
    lastLength = line.length;
  };

  return {
    onProgress(event: ProgressEvent) {
      switch (event.type) {
        case "plan": {
          total = event.trials;
          done = event.resumed;
          const resumed = event.resumed > 0 ? ` (${event.resumed} already finished, resuming)` : "";
          const cost =
            event.estimatedCostUsd !== null ? `, estimated cost $${event.estimatedCostUsd.toFixed(2)}` : "";
          stream.write(
            `Running ${event.trials} trial(s) of ${event.scenarios} scenario(s)${resumed}${cost}\n`,
          );
          break;
        }
        case "note":
          stream.write(`${stream.isTTY ? "\r" : ""}note: ${escapePlainText(event.message)}\n`);
          break;
        case "extended":
          total = event.total;
          stream.write(
            `${stream.isTTY ? "\r" : ""}Extra trials: ${escapePlainText(event.scenarioKey)} gets ${event.trials} more (its first trials passed less often than the baseline's)\n`,
          );
          break;
        case "stopping":
          stream.write(
            `${stream.isTTY ? "\r" : ""}Stopping: ${escapePlainText(event.reason)}; no new trials start.\n`,
          );
          break;
        case "trial_start":
          running.set(escapePlainText(event.key), 0);
          break;
        case "turn":
          running.set(escapePlainText(event.key), event.turn);
          break;
        case "trial_end": {
          running.delete(escapePlainText(event.key));
          done = event.done;
          const line = `${event.report.outcome.toUpperCase().padEnd(7)} ${escapePlainText(event.key)} (${event.done}/${event.total}, ${elapsed()})`;
          if (stream.isTTY) {
            stream.write(`\r${line}${" ".repeat(Math.max(0, lastLength - line.length))}\n`);
            lastLength = 0;
          } else {
            stream.write(`${line}\n`);
          }
          break;
        }
      }
      redraw();
    },
    finish() {
      if (stream.isTTY && lastLength > 0) stream.write(`\r${" ".repeat(lastLength)}\r`);
    },
  };
}
