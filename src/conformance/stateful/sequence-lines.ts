/**
 * @module conformance/stateful/sequence-lines
 * A step of a failing sequence as one shell line: the step's curl command, or, for N identical
 * requests sent at once, a loop that sends them together, or, for polling, the read with how
 * often it was repeated.
 */
import type { SequenceLine } from '../exchange.js';

export function sequenceCommand(curl: string, repeat: SequenceLine['repeat']): string {
  if (!repeat || repeat.times <= 1) return curl;
  if (repeat.how === 'at-once') return `for i in $(seq ${repeat.times}); do ${curl} & done; wait`;
  return `${curl}  # read ${repeat.times} times, until the job was COMPLETE or FAILED (a rerun polls the jobId its create answers)`;
}

/** What reports print above a failing sequence's numbered commands. */
export const sequenceHeading =
  'the sequence, in order (the server has seen its Idempotency-Keys: change them, or use a fresh server, to rerun it)';

/** A failing sequence as numbered lines, indented by `indent`. */
export function numberedSequence(sequence: readonly string[], indent: string): string[] {
  return sequence.map((line, index) => `${indent}${index + 1}. ${line}`);
}
