/**
 * @module http/capped-buffer
 * The one way a body is buffered with a cap: chunks copied into one growing Buffer (doubling,
 * never past the cap), so memory follows the bytes kept, not the number of chunks. Used for
 * answers from a server under test or an upstream, and for request bodies the proxy keeps.
 */

/** How much of a body that is not whole is kept, to show how it began. */
export const incompleteHeadBytes = 8 * 1024;

/**
 * Collects body chunks up to a cap. Keeping each chunk as its own view would retain the
 * socket's whole read buffer per chunk (1-byte chunks peaked at 3.3 GB).
 */
export class CappedBuffer {
  private store: Buffer = Buffer.alloc(0);
  private length = 0;
  /** Bytes received, kept or not. */
  bytes = 0;
  constructor(private readonly limit: number) {}

  /** Adds a chunk; false (keeping only what fits) once the cap is passed. */
  add(chunk: Uint8Array): boolean {
    const room = this.limit - this.length;
    this.bytes += chunk.length;
    const kept = Math.min(chunk.length, Math.max(0, room));
    if (kept > 0) {
      // The first chunk that fits whole is kept as a copy of itself: no doubling for a one-chunk body.
      if (this.length === 0 && kept === chunk.length && this.store.length === 0) {
        this.store = Buffer.from(chunk);
        this.length = kept;
      } else {
        this.reserve(this.length + kept);
        this.store.set(kept === chunk.length ? chunk : chunk.subarray(0, kept), this.length);
        this.length += kept;
      }
    }
    return chunk.length <= room;
  }

  private reserve(needed: number): void {
    if (needed <= this.store.length) return;
    let size = Math.max(this.store.length * 2, 1024);
    while (size < needed) size *= 2;
    const grown = Buffer.allocUnsafeSlow(Math.min(size, Math.max(this.limit, needed)));
    this.store.copy(grown, 0, 0, this.length);
    this.store = grown;
  }

  /** Whether more bytes arrived than were kept. */
  get cut(): boolean {
    return this.bytes > this.length;
  }

  /** The bytes kept (a view of the store, which is released with the buffer). */
  get body(): Buffer {
    return this.store.subarray(0, this.length);
  }

  /**
   * The start of the body, for one that is not whole: reports show only its beginning, and
   * holding the rest (up to the cap) for every such body is what made RSS grow.
   */
  get head(): Buffer {
    const head = Buffer.from(this.store.subarray(0, Math.min(this.length, incompleteHeadBytes)));
    this.store = Buffer.alloc(0);
    this.length = 0;
    return head;
  }
}

/**
 * Reads a stream whole up to `limit` bytes; the rest is read and dropped (so a connection stays
 * usable) but counted. Rejects with the stream's error.
 */
export async function readCapped(source: AsyncIterable<Uint8Array>, limit: number): Promise<{ body: Buffer; bytes: number }> {
  const buffer = new CappedBuffer(limit);
  for await (const chunk of source) buffer.add(chunk);
  return { body: buffer.body, bytes: buffer.bytes };
}
