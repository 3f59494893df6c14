/**
 * @module engine/sizes
 * Estimated bytes held by what the engine stores, so every store is bounded in bytes as well
 * as in entries (docs/assumptions.md A-18). Estimates count strings as UTF-16 (two bytes a
 * unit, an upper bound of what V8 keeps) plus a fixed overhead per object; they are budgets,
 * not measurements, and err on the large side.
 */
import type { JobRecord, TimelineStep } from './jobs.js';
import type { JournalEntry } from './journal.js';
import type { IdempotencyRecord } from './operations.js';

// Measured: 100,000 jobs and their keys take about 1.3 KB each of RSS; these estimates come to
// about 1.9 KB, so a budget is reached before the memory it stands for.
const objectOverhead = 160;

function textBytes(text: string | undefined): number {
  return text === undefined ? 0 : text.length * 2;
}

function listBytes(texts: readonly string[] | undefined): number {
  if (!texts) return 0;
  let total = objectOverhead;
  for (const text of texts) total += textBytes(text) + 16;
  return total;
}

/** Timelines are shared by every job of a scenario: measured once each. */
const timelineSizes = new WeakMap<readonly TimelineStep[], number>();

function timelineBytes(timeline: readonly TimelineStep[]): number {
  let size = timelineSizes.get(timeline);
  if (size === undefined) {
    size = objectOverhead;
    for (const step of timeline) size += objectOverhead * 2 + listBytes(step.limitations);
    timelineSizes.set(timeline, size);
  }
  return size;
}

/**
 * A job's bytes. Its timeline is charged to every job that holds it: a job keeps the timeline
 * of its scenario alive after the scenario itself is dropped, so without the charge a stream
 * of scenarios, each with one job, would escape every budget.
 */
export function jobRecordBytes(key: string, record: JobRecord): number {
  return (
    objectOverhead * 2 +
    textBytes(key) +
    textBytes(record.owner) +
    textBytes(record.scenario) +
    timelineBytes(record.timeline) +
    (record.pinned ? objectOverhead + listBytes(record.pinned.limitations) : 0)
  );
}

export function idempotencyRecordBytes(key: string, record: IdempotencyRecord): number {
  return objectOverhead * 2 + textBytes(key) + textBytes(record.digest) + textBytes(record.jobId);
}

export function journalEntryBytes(entry: JournalEntry): number {
  return (
    objectOverhead * 2 +
    textBytes(entry.method) +
    textBytes(entry.path) +
    textBytes(entry.operationId) +
    textBytes(entry.scenario) +
    textBytes(entry.code) +
    textBytes(entry.jobId) +
    textBytes(entry.idempotencyKey)
  );
}
