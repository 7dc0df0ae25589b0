/**
 * The harness-efficiency workload done by the shortest loop we can write, for comparison: the same
 * trials (turns of one Messages call each, a `bash -c` command between turns) at the same
 * concurrency, with node:http (keep-alive), JSON.parse and spawn straight from the event loop, as
 * most harnesses do. No sandbox, no events, no evaluation. Prints the wall time in ms, counted
 * after start-up.
 *
 *   node bench/bare-loop.mjs BASE_URL TRIALS CONCURRENCY TURNS
 *
 * With `probe` instead of the counts, it times the two steps of a turn one at a time, a model call
 * then a command, as a sequential trial meets them, and prints their medians in ms as JSON:
 * { "modelCallMs": round trip of one Messages call, "commandMs": one `bash -c 'echo N'` }.
 *
 *   node bench/bare-loop.mjs BASE_URL probe
 */
import { spawn } from "node:child_process";
import { createBareMessagesCall } from "./bare-messages-call.mjs";

const [baseUrl, trialsArg, concurrencyArg, turnsArg] = process.argv.slice(2);
const probing = trialsArg === "probe";
const trials = Number(trialsArg);
const concurrency = Number(concurrencyArg);
const turns = Number(turnsArg);
const messagesCall = createBareMessagesCall(baseUrl);

function createMessage(messages) {
  return messagesCall.call({ model: "claude-bench", max_tokens: 1024, messages });
}

function bash(command) {
  return new Promise((resolve) => {
    const child = spawn("bash", ["-c", command], { detached: true, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
    });
    child.stderr.resume();
    child.on("close", () => resolve(stdout));
  });
}

async function trial(index) {
  const messages = [{ role: "user", content: `task ${index}` }];
  for (let turn = 0; turn < turns; turn++) {
    const message = await createMessage(messages);
    messages.push({ role: "assistant", content: message.content });
    const toolUse = message.content.find((block) => block.type === "tool_use");
    if (!toolUse) return;
    const output = await bash(toolUse.input.command);
    messages.push({
      role: "user",
      content: [{ type: "tool_result", tool_use_id: toolUse.id, content: output }],
    });
  }
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

if (probing) {
  const modelCalls = [];
  const commands = [];
  for (let i = 0; i < 40; i++) {
    let started = performance.now();
    await createMessage([{ role: "user", content: `probe ${i}` }]);
    modelCalls.push(performance.now() - started);
    started = performance.now();
    await bash(`echo ${i}`);
    commands.push(performance.now() - started);
  }
  // The first calls pay for compiling this script's code paths.
  process.stdout.write(
    `${JSON.stringify({ modelCallMs: median(modelCalls.slice(5)), commandMs: median(commands.slice(5)) })}\n`,
  );
  messagesCall.close();
  process.exit(0);
}

const started = performance.now();
let next = 0;
await Promise.all(
  Array.from({ length: concurrency }, async () => {
    while (next < trials) await trial(next++);
  }),
);
process.stdout.write(`${Math.round(performance.now() - started)}\n`);
messagesCall.close();
