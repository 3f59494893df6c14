/**
 * `proxy --record`'s cassette counts what its header lines hold, as the HAR holds them (issue
 * 40: 2,000 one-letter headers a side were counted as 8 kB of names and values and held 114 kB
 * an exchange): the per-message bound and the cassette's byte total both include them.
 */
import { expect, it } from 'vitest';
import { Scrubber } from '../../src/conformance/secrets.js';
import { ProxyCassette } from '../../src/proxy/cassette.js';

/** `count` one-letter headers: as small a name and value as a client can send, the most lines per byte. */
function tinyHeaders(count: number): Record<string, string> {
  return Object.fromEntries(Array.from({ length: count }, (_, index) => [`h${index}`, 'v']));
}

function exchange(index: number, headers: Record<string, string>) {
  return {
    startedAt: 0,
    durationMs: 1,
    request: { method: 'GET', url: `http://upstream/v0/jobs/job_${index}`, headers },
    response: { status: 200, headers, body: '{}' },
  };
}

const maxHeaderChars = 32 * 1024;

it('holds a header-heavy exchange to its header bound as serialised, and says what it left out', () => {
  const cassette = new ProxyCassette({ creator: { name: 'test', version: '0' } });
  cassette.add(exchange(0, tinyHeaders(2000)), new Scrubber([]));
  const entry = cassette.toHar().log.entries[0]!;
  // Both messages' header lines within their bounds, plus the entry's own few hundred characters.
  expect(cassette.size).toBeLessThanOrEqual(2 * maxHeaderChars + 2048);
  for (const side of [entry.request, entry.response]) expect(JSON.stringify(side.headers).length).toBeLessThanOrEqual(maxHeaderChars);
  expect(entry.comment).toMatch(/\d+ header lines left out of the cassette/);
});

it('counts header lines in the byte total, and keeps the total within maxBytes', () => {
  const bare = new ProxyCassette({ creator: { name: 'test', version: '0' } });
  const heavy = new ProxyCassette({ creator: { name: 'test', version: '0' } });
  bare.add(exchange(0, {}), new Scrubber([]));
  heavy.add(exchange(0, tinyHeaders(500)), new Scrubber([]));
  // The size is the entries' own text, header lines included.
  expect(heavy.size).toBe(JSON.stringify(heavy.toHar().log.entries[0]).length);
  expect(heavy.size - bare.size).toBeGreaterThan(2 * 500 * '{"name":"h0","value":"v"}'.length);

  const maxBytes = 256 * 1024;
  const bounded = new ProxyCassette({ creator: { name: 'test', version: '0' }, limits: { maxBytes } });
  for (let index = 0; index < 100; index += 1) bounded.add(exchange(index, tinyHeaders(2000)), new Scrubber([]));
  expect(bounded.size).toBeLessThanOrEqual(maxBytes);
  expect(bounded.size).toBe(bounded.toHar().log.entries.reduce((sum, entry) => sum + JSON.stringify(entry).length, 0));
  // The oldest went first: the newest is kept.
  expect(bounded.toHar().log.entries.at(-1)?.request.url).toBe('http://upstream/v0/jobs/job_99');
  expect(bounded.length).toBeLessThan(100);
});
