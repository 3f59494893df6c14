/**
 * Request log lines are written in batches, in order, whole, and none is left behind by flush().
 */
import { expect, it } from 'vitest';
import { createLineBuffer } from '../../src/cli/buffered-lines.js';

it('writes the lines of one moment together, in order, a few milliseconds later', async () => {
  const writes: string[] = [];
  const lines = createLineBuffer({ write: (text) => writes.push(text), flushMs: 5 });
  for (let index = 0; index < 1000; index += 1) lines.add(`line ${index}`);
  expect(writes).toEqual([]);
  await expect.poll(() => writes.length).toBeGreaterThan(0);
  expect(writes.join('')).toBe(Array.from({ length: 1000 }, (_, index) => `line ${index}\n`).join(''));
  expect(writes.length).toBeLessThan(5);
});

it('writes at once when the batch passes its size, and flush() writes whatever is pending', () => {
  const writes: string[] = [];
  const lines = createLineBuffer({ write: (text) => writes.push(text), maxChars: 100, flushMs: 60_000 });
  for (let index = 0; index < 25; index += 1) lines.add('0123456789');
  expect(writes.length).toBe(2);
  expect(writes.every((text) => text.length >= 100 && text.endsWith('\n'))).toBe(true);
  lines.flush();
  lines.flush();
  expect(writes.length).toBe(3);
  expect(writes.join('')).toBe('0123456789\n'.repeat(25));
});
