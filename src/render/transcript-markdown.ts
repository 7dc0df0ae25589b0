import type { TrialEvent } from "../transcript/events.js";
import { escapeMarkdownCell, markdownCode, markdownFence, markdownText } from "./escape.js";

export interface TranscriptOptions {
  /** Longest stdout/stderr shown per tool result before it is cut (the events keep the full capture). */
  maxOutputChars?: number;
}

function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  const half = Math.floor(max / 2);
  return `${text.slice(0, half)}\n[... ${text.length - max} characters not shown ...]\n${text.slice(-half)}`;
}

/** A readable transcript of one trial, for people and for the judge. Pure. */
export function renderTranscriptMarkdown(events: TrialEvent[], options: TranscriptOptions = {}): string {
  const max = options.maxOutputChars ?? 4000;
  const out: string[] = [];
  for (const event of events) {
    switch (event.type) {
      case "trial_start":
        out.push(
          `# Trial ${event.trial} of ${markdownCode(event.scenario_id)}${event.variant ? ` (variant ${markdownCode(event.variant)})` : ""}`,
          "",
          `Agent ${markdownCode(event.agent)}${event.model ? `, model ${markdownCode(event.model)}` : ""}, sandbox ${markdownCode(event.sandbox)}, started ${markdownText(event.ts)}.`,
          "",
        );
        break;
      case "prompt":
        out.push(
          "**Task**",
          "",
          markdownFence(event.task),
          "",
          "**System prompt**",
          "",
          markdownFence(event.system_prompt),
          "",
        );
        break;
      case "setup":
        out.push(`**Setup** ${markdownCode(event.command)} → exit ${event.exit_code}`, "");
        break;
      case "model_response": {
        const tokens = `${event.usage.input_tokens} in / ${event.usage.output_tokens} out`;
        out.push(
          `## Turn ${event.turn} (${tokens}, ${event.duration_ms} ms, stop: ${markdownText(event.stop_reason ?? "none")})`,
          "",
        );
        // The model's words are the agent's: shown as written, in a block nothing in them can end.
        if (event.text.trim()) out.push(markdownFence(event.text.trim()), "");
        break;
      }
      case "model_error":
        out.push(
          `> Model call failed (attempt ${event.attempt}${event.status ? `, HTTP ${event.status}` : ""}): ${markdownText(event.message)}${event.will_retry ? " — retrying" : ""}`,
          "",
        );
        break;
      case "tool_call":
        // The fence on a line of its own: after text on the same line it would be an inline code span, which a blank line ends.
        out.push("**$**", markdownFence(event.command), "");
        break;
      case "tool_result": {
        const flags = [event.timed_out ? "timed out" : "", event.truncated ? "output truncated" : ""].filter(
          Boolean,
        );
        out.push(
          `exit ${event.exit_code}, ${event.duration_ms} ms${flags.length ? ` (${flags.join(", ")})` : ""}`,
          "",
        );
        if (event.stdout) out.push("stdout:", markdownFence(clip(event.stdout, max)), "");
        if (event.stderr) out.push("stderr:", markdownFence(clip(event.stderr, max)), "");
        break;
      }
      case "agent_output":
        out.push(markdownFence(clip(event.text, max * 4)), "");
        break;
      case "recorded_execution":
        out.push(
          `**Recorded run** (carried from the recording, not measured here): ${event.turns} turn(s), ` +
            `${event.input_tokens} in / ${event.output_tokens} out tokens, ${event.tool_calls} tool call(s), ` +
            `ended ${markdownText(event.end_reason)}${event.model ? `, model ${markdownCode(event.model)}` : ""}.`,
          "",
        );
        break;
      case "target_invocation":
      case "model_request":
        break;
      case "trial_end":
        out.push(
          `---`,
          "",
          `Ended: **${markdownText(event.reason)}** after ${event.turns} turn(s), ${event.duration_ms} ms.${event.error ? ` Error: ${markdownText(event.error)}` : ""}`,
          "",
        );
        break;
    }
  }
  const invocations = events.filter((e) => e.type === "target_invocation");
  if (invocations.length > 0) {
    out.push("## Target invocations (from the shim)", "", "| # | argv | exit | ms |", "|---|---|---|---|");
    invocations.forEach((e, i) => {
      const argv = e.argv.map((a) => (/[\s|"'`]/.test(a) ? JSON.stringify(a) : a)).join(" ");
      out.push(
        `| ${i + 1} | ${escapeMarkdownCell(markdownCode(argv))} | ${e.exit_code} | ${e.duration_ms} |`,
      );
    });
    out.push("");
  }
  return out.join("\n");
}
