/**
 * @module proxy/cassette
 * `proxy --record FILE.har`: the exchanges kept as HAR 1.2 entries, each serialised (scrubbed)
 * when it is kept, so that everything it holds (URL, header names and values, bodies, comment)
 * counts against one byte bound: the oldest entries go first. An exchange's headers past a
 * per-message bound are left out, saying how many; the bound counts each header line as the HAR
 * holds it (`{"name":…,"value":…}`, JSON-escaped), so 2,000 one-letter headers cost what they
 * hold (issue 40: counted as names and values alone, they held 114 kB an exchange). The file is
 * written entry by entry, so a large cassette never has to be one string.
 */

import { buildHar, type CassetteEntry } from '../conformance/report/har.js';
import type { Scrubber } from '../conformance/secrets.js';
import { writeOutputFile } from '../files/output-file.js';

export interface CassetteLimits {
  /** Bytes of serialised entries kept in all. Default 64 MiB. */
  readonly maxBytes: number;
  /** Entries kept at most. Default 10,000. */
  readonly maxEntries: number;
  /** Characters of one body kept. Default 1 MiB. */
  readonly maxBodyChars: number;
  /** Characters of one message's headers kept, as the HAR holds them (names, values and their JSON). Default 32 KiB. */
  readonly maxHeaderChars: number;
}

export const cassetteDefaults: CassetteLimits = {
  maxBytes: 64 * 1024 * 1024,
  maxEntries: 10_000,
  maxBodyChars: 1024 * 1024,
  maxHeaderChars: 32 * 1024,
};

type Headers = CassetteEntry['request']['headers'];

/** What a HAR header line adds to its name and value as JSON strings: `{"name":,"value":},`. */
const harHeaderLineChars = '{"name":,"value":},'.length;

/** A text's length as a JSON string: its quotes, and a second character for each `"` or `\` (the escapes header values can need). */
function jsonLength(text: string): number {
  let length = text.length + 2;
  for (let index = text.indexOf('"'); index !== -1; index = text.indexOf('"', index + 1)) length += 1;
  for (let index = text.indexOf('\\'); index !== -1; index = text.indexOf('\\', index + 1)) length += 1;
  return length;
}

/** The headers up to `maxChars` as the HAR holds them, and how many lines were left out. */
function boundedHeaders(headers: Headers, maxChars: number): { headers: Record<string, string | string[]>; left: number } {
  const kept: Record<string, string | string[]> = Object.create(null);
  let chars = 0;
  let left = 0;
  for (const name in headers) {
    const value = headers[name];
    if (value === undefined) continue;
    const nameChars = jsonLength(name) + harHeaderLineChars;
    for (const one of typeof value === 'string' ? [value] : value) {
      chars += nameChars + jsonLength(one);
      if (chars > maxChars) {
        left += 1;
        continue;
      }
      const existing = kept[name];
      kept[name] = existing === undefined ? one : [...(typeof existing === 'string' ? [existing] : existing), one];
    }
  }
  return { headers: kept, left };
}

function cut(text: string | undefined, maxChars: number): string | undefined {
  return text === undefined || text.length <= maxChars ? text : `${text.slice(0, maxChars)}… (cut at ${maxChars} characters)`;
}

export class ProxyCassette {
  readonly limits: CassetteLimits;
  private readonly entries: string[] = [];
  private bytes = 0;

  constructor(
    private readonly options: { readonly creator: { name: string; version: string }; readonly limits?: Partial<CassetteLimits> },
  ) {
    this.limits = { ...cassetteDefaults, ...options.limits };
  }

  /** Characters the kept entries hold as serialised, headers included: what the bound counts. */
  get size(): number {
    return this.bytes;
  }

  get length(): number {
    return this.entries.length;
  }

  /** Keeps an exchange, bounded, with its credentials taken out by the one scrubber. */
  add(entry: CassetteEntry, scrubber: Scrubber): void {
    const request = boundedHeaders(entry.request.headers, this.limits.maxHeaderChars);
    const response = entry.response ? boundedHeaders(entry.response.headers, this.limits.maxHeaderChars) : undefined;
    const left = request.left + (response?.left ?? 0);
    const requestBody = cut(entry.request.body, this.limits.maxBodyChars);
    const bounded: CassetteEntry = {
      ...entry,
      request: { ...entry.request, headers: request.headers, ...(requestBody === undefined ? {} : { body: requestBody }) },
      ...(entry.response && response
        ? { response: { ...entry.response, headers: response.headers, body: cut(entry.response.body, this.limits.maxBodyChars)! } }
        : {}),
      ...(left > 0 || entry.comment
        ? { comment: [entry.comment, left > 0 ? `${left} header lines left out of the cassette` : undefined].filter(Boolean).join('; ') }
        : {}),
    };
    const [harEntry] = buildHar({ creator: this.options.creator, entries: [bounded], scrubber }).log.entries;
    // buildHar scrubs with the exchange's own credentials; the deep pass adds every form the
    // scrubber learnt from other exchanges (a cookie set earlier, echoed percent-encoded now).
    const text = JSON.stringify(scrubber.scrubDeep(harEntry));
    this.entries.push(text);
    this.bytes += text.length;
    while (this.entries.length > this.limits.maxEntries || (this.bytes > this.limits.maxBytes && this.entries.length > 0))
      this.bytes -= this.entries.shift()!.length;
  }

  /** The cassette as a HAR 1.2 document (parsed back: for tests and the API). */
  toHar(): ReturnType<typeof buildHar> {
    const empty = buildHar({ creator: this.options.creator, entries: [] });
    return { log: { ...empty.log, entries: this.entries.map((text) => JSON.parse(text)) } };
  }

  /** Writes the HAR file entry by entry, through the one writer (src/files); rejects with an OutputFileError. */
  async write(file: string): Promise<void> {
    await writeOutputFile({ path: file, data: this.pieces(), label: '--record' });
  }

  private *pieces(): Iterable<string> {
    const head = JSON.stringify({ log: { version: '1.2', creator: this.options.creator } }).slice(0, -2);
    yield `${head},"entries":[\n`;
    for (let index = 0; index < this.entries.length; index += 1) yield `${index === 0 ? '' : ',\n'}${this.entries[index]}`;
    yield '\n]}}\n';
  }
}
