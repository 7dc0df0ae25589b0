/**
 * Where an external agent's streamed stdout was cut (past its stream cap: head and tail kept):
 * one `agent_output` event flagged `truncated`, between the head's lines and the tail's.
 */
import { describeStreamCut } from "../sandbox/exec.js";
import type { EventSink } from "../transcript/events.js";

export function emitOutputCut(events: EventSink, droppedBytes: number): void {
  events.emit({ type: "agent_output", text: describeStreamCut(droppedBytes), truncated: true });
}
