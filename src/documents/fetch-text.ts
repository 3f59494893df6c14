/**
 * @module documents/fetch-text
 * The text of a document named by an http(s) URL, fetched through the project's one outbound
 * client (src/http) with the loader's bounds: bytes counted as they arrive and the answer
 * dropped past the cap, the caller's deadline (an AbortSignal), at most a few redirects (each
 * one a new URL, checked as the first), TLS trust from --ca / --insecure. Every connection is
 * held to the caller's address policy (address-guard.ts `connectGuard`: the lookup's addresses,
 * a literal host, the socket's remote address once connected), on every redirect hop, except
 * connections to `trustedOrigin`: the origin of a URL the person running the command typed,
 * theirs to name.
 */
import { OutboundClient } from '../http/outbound-client.js';
import { type AddressPolicy, connectGuard } from './address-guard.js';

/** Trust for https URLs: a PEM CA, or any certificate (tests only). */
export interface DocumentTls {
  readonly ca?: string;
  readonly insecure?: boolean;
}

/** An answer that is not the document: its status, a transport failure, too large, refused. */
export class FetchTextError extends Error {
  override readonly name = 'FetchTextError';
}

const maxRedirects = 5;

/**
 * The body of a GET of `url` as UTF-8 text, and the URL it was finally read from (after
 * redirects). Throws FetchTextError for anything but a 200 within `maxBytes`, or the signal's
 * reason once it aborts.
 */
export async function fetchText(options: {
  readonly url: string;
  readonly maxBytes: number;
  readonly signal: AbortSignal;
  readonly tls?: DocumentTls | undefined;
  /** Which addresses every connection may reach (address-guard.ts), but for `trustedOrigin`'s. */
  readonly policy: AddressPolicy;
  /** An origin the person running the command typed: reached, and redirected within, unjudged. */
  readonly trustedOrigin?: string | undefined;
  /** An Authorization header: a URL's `user:password@`, taken out of it (contract/secrets). */
  readonly authorization?: string | undefined;
}): Promise<{ text: string; url: string }> {
  const { tls } = options;
  const clientFor = (policy: AddressPolicy | undefined) =>
    new OutboundClient({
      maxBodyBytes: options.maxBytes,
      // The reading's own deadline (the signal) bounds it; the client's is only an outer bound.
      deadlineMs: 2 ** 31 - 1,
      connectionsPerOrigin: 1,
      ...(tls?.ca || tls?.insecure ? { tls: { ...(tls.ca ? { ca: tls.ca } : {}), ...(tls.insecure ? { insecure: true } : {}) } } : {}),
      ...(policy ? { connectGuard: connectGuard(policy) } : {}),
    });
  const clients: { guarded?: OutboundClient; trusted?: OutboundClient } = {};
  // Each hop's own origin decides: a redirect from the typed origin to anywhere else is judged.
  const clientOf = (url: string): OutboundClient => {
    if (options.trustedOrigin !== undefined && new URL(url).origin === options.trustedOrigin) {
      clients.trusted ??= clientFor(undefined);
      return clients.trusted;
    }
    clients.guarded ??= clientFor(options.policy);
    return clients.guarded;
  };
  try {
    let url = options.url;
    for (let redirect = 0; ; redirect += 1) {
      const outcome = await clientOf(url).send({
        method: 'GET',
        url,
        signal: options.signal,
        headers: {
          accept: 'application/yaml, application/json;q=0.9, */*;q=0.5',
          // Sent only to the URL's own origin: a redirect elsewhere goes without it.
          ...(options.authorization && new URL(url).origin === new URL(options.url).origin ? { authorization: options.authorization } : {}),
        },
      });
      if (outcome.interrupted || options.signal.aborted) throw options.signal.reason;
      const { answer, failure } = outcome;
      if (!answer)
        throw new FetchTextError(
          failure?.kind === 'refused'
            ? `refused: ${failure.message.replace(/^not connected: /, '')}`
            : `cannot be fetched (${failure?.message ?? 'no answer'})`,
        );
      const location = answer.headers.location;
      if (answer.status >= 300 && answer.status < 400 && location !== undefined) {
        if (redirect >= maxRedirects) throw new FetchTextError(`redirected more than ${maxRedirects} times`);
        let next: URL;
        try {
          next = new URL(location, url);
        } catch {
          throw new FetchTextError('redirected to a Location that is not a URL');
        }
        if (next.protocol !== 'http:' && next.protocol !== 'https:')
          throw new FetchTextError(`redirected to a ${next.protocol} URL, which is not followed`);
        url = next.href;
        continue;
      }
      if (answer.status !== 200) throw new FetchTextError(`answered ${answer.status}, not the document`);
      if (answer.partial)
        throw new FetchTextError(
          answer.partial.reason === 'too-large'
            ? `its answer is larger than ${options.maxBytes} bytes, the most a document may be`
            : `its answer was cut (${answer.partial.message})`,
        );
      return { text: answer.body.toString('utf8'), url };
    }
  } finally {
    for (const client of [clients.guarded, clients.trusted]) void client?.close();
  }
}
