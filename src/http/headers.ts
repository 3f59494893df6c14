/**
 * @module http/headers
 * Header plumbing shared by the outbound client, the proxy and the runner: one flattening of
 * parsed headers into one string per name, and the hop-by-hop rule of RFC 9110 §7.6.1.
 */

type ParsedHeaders = Readonly<Record<string, string | readonly string[] | undefined>>;

/**
 * One string per name, repeats joined by ", " (as a recipient may combine them, RFC 9110 §5.3).
 * The result has no prototype, so a header named `__proto__` or `constructor` is a plain header.
 */
export function flattenHeaders(headers: ParsedHeaders): Record<string, string> {
  const flat: Record<string, string> = Object.create(null);
  // for…in, not Object.entries: parsers' header dictionaries may have no prototype, and entries()
  // of such a dictionary takes a slow runtime path.
  for (const name in headers) {
    const value = headers[name];
    if (value !== undefined) flat[name] = typeof value === 'string' ? value : value.join(', ');
  }
  return flat;
}

/** Pairs of a raw header list `[name, value, name, value, …]`, as Buffers or strings. */
export function headerPairs(raw: readonly (string | Uint8Array)[]): [string, string][] {
  const pairs: [string, string][] = [];
  for (let index = 0; index + 1 < raw.length; index += 2) {
    const name = raw[index]!;
    const value = raw[index + 1]!;
    pairs.push([latin1(name), latin1(value)]);
  }
  return pairs;
}

function latin1(text: string | Uint8Array): string {
  if (typeof text === 'string') return text;
  // A Buffer decodes in place; a plain Uint8Array is viewed, not copied.
  return (Buffer.isBuffer(text) ? text : Buffer.from(text.buffer, text.byteOffset, text.byteLength)).toString('latin1');
}

/** Headers that describe one connection, not the message: never forwarded (RFC 9110 §7.6.1). */
export const hopByHopHeaders: ReadonlySet<string> = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

/** The names a message's Connection header lists: hop-by-hop for that message too. */
export function connectionListed(connection: string | readonly string[] | undefined): Set<string> | undefined {
  if (connection === undefined) return undefined;
  return new Set(
    String(connection)
      .split(',')
      .map((name) => name.trim().toLowerCase())
      .filter(Boolean),
  );
}
