/**
 * @module conformance/stateful/sequence-lines
 * A step of a failing sequence as one shell line: the step's curl command, or, for N identical
 * requests sent at once, a loop that sends them together, for different requests sent at once,
 * each in the background and a wait, or, for polling, the read with how often it was repeated;
 * a wait before the next step (a late replay) is a `sleep` after it.
 */
import type { SequenceLine } from '../exchange.js';

export function sequenceCommand(
  curl: string,
  repeat: SequenceLine['repeat'],
  options: { together?: readonly string[]; thenWaitMs?: number } = {},
): string {
  const sleep = options.thenWaitMs ? `; sleep ${Number((options.thenWaitMs / 1000).toFixed(3))}` : '';
  if (options.together && options.together.length > 1) return `${options.together.map((command) => `${command} & `).join('')}wait${sleep}`;
  if (!repeat || repeat.times <= 1) return `${curl}${sleep}`;
  if (repeat.how === 'at-once') return `for i in $(seq ${repeat.times}); do ${curl} & done; wait${sleep}`;
  return `${curl}${sleep}  # read ${repeat.times} times, until the job was COMPLETE or FAILED (a rerun polls the jobId its create answers)`;
}

/** What reports print above a failing sequence's numbered commands. */
export const sequenceHeading =
  'the sequence, in order (the server has seen its Idempotency-Keys: change them, or use a fresh server, to rerun it)';

/** A failing sequence as numbered lines, indented by `indent`. */
export function numberedSequence(sequence: readonly string[], indent: string): string[] {
  return sequence.map((line, index) => `${indent}${index + 1}. ${line}`);
}
