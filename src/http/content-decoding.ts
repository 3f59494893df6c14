/**
 * @module http/content-decoding
 * The one Content-Encoding decoder: a body as received is decoded coding by coding (the list is
 * applied in order, so it is undone from the last), off the event loop (zlib's streams run in
 * the thread pool), within one byte budget that every stage's output counts against, and for
 * at most a few codings. A stack of thousands of codings, or a bomb that inflates a thousandfold,
 * stops at the budget instead of holding the process.
 */
import type { Transform } from 'node:stream';
import zlib from 'node:zlib';

export interface DecodeLimits {
  /** Bytes all the stages together may produce. */
  readonly maxDecodedBytes: number;
  /** Codings undone at most; a longer list is refused unread. */
  readonly maxCodings: number;
}

export type DecodeResult =
  | { readonly body: Buffer; readonly decoded: boolean }
  | {
      /** too-large: past the budget; undecodable: corrupt; unsupported: a coding not decoded here, or too many codings. */
      readonly problem: 'too-large' | 'undecodable' | 'unsupported';
      readonly message: string;
      /** Decoded bytes produced before it stopped (the last stage's). */
      readonly bytes: number;
    };

/** The codings of a Content-Encoding value, in the order they were applied ("identity" left out). */
export function codingsOf(contentEncoding: string | undefined): string[] {
  if (!contentEncoding) return [];
  const codings: string[] = [];
  for (const part of contentEncoding.split(',')) {
    const coding = part.trim().toLowerCase();
    if (coding !== '' && coding !== 'identity') codings.push(coding);
  }
  return codings;
}

function decoderFor(coding: string): Transform | undefined {
  if (coding === 'gzip' || coding === 'x-gzip') return zlib.createGunzip();
  if (coding === 'deflate') return zlib.createInflate();
  if (coding === 'br') return zlib.createBrotliDecompress();
  return undefined;
}

/** The codings this decoder undoes. */
export const supportedCodings = ['gzip', 'x-gzip', 'deflate', 'br'] as const;

/**
 * Undoes the Content-Encoding of a whole body. A body with no coding comes back as it is
 * (`decoded: false`), without a copy.
 */
export async function decodeContent(options: { body: Buffer; contentEncoding: string | undefined } & DecodeLimits): Promise<DecodeResult> {
  const codings = codingsOf(options.contentEncoding);
  if (codings.length === 0) return { body: options.body, decoded: false };
  const shown = String(options.contentEncoding).slice(0, 60);
  if (codings.length > options.maxCodings)
    return {
      problem: 'unsupported',
      message: `the answer's Content-Encoding lists ${codings.length} codings; at most ${options.maxCodings} are decoded`,
      bytes: 0,
    };
  const unknown = codings.find((coding) => decoderFor(coding) === undefined);
  if (unknown !== undefined)
    return {
      problem: 'unsupported',
      message: `the answer's Content-Encoding '${shown}' names a coding that is not decoded (${unknown.slice(0, 20)})`,
      bytes: 0,
    };
  let budget = options.maxDecodedBytes;
  let current = options.body;
  for (const coding of codings.reverse()) {
    const stage = await runStage(decoderFor(coding)!, current, budget);
    if ('problem' in stage) {
      const message =
        stage.problem === 'too-large'
          ? `answer larger than ${options.maxDecodedBytes} bytes once decoded from '${shown}'`
          : `the ${shown}-encoded body could not be decoded`;
      return { problem: stage.problem, message, bytes: stage.bytes };
    }
    budget -= stage.body.length;
    current = stage.body;
  }
  return { body: current, decoded: true };
}

function runStage(
  decoder: Transform,
  input: Buffer,
  budget: number,
): Promise<{ body: Buffer } | { problem: 'too-large' | 'undecodable'; bytes: number }> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let bytes = 0;
    let settled = false;
    const settle = (result: { body: Buffer } | { problem: 'too-large' | 'undecodable'; bytes: number }) => {
      if (settled) return;
      settled = true;
      resolve(result);
    };
    decoder.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes > budget) {
        settle({ problem: 'too-large', bytes });
        decoder.destroy();
        return;
      }
      chunks.push(chunk);
    });
    decoder.on('error', () => settle({ problem: 'undecodable', bytes }));
    decoder.on('end', () => settle({ body: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, bytes) }));
    decoder.end(input);
  });
}
