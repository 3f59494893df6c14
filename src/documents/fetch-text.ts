/**
 * @module documents/fetch-text
 * The text of a document named by an http(s) URL, fetched through undici with the loader's
 * bounds: bytes counted as they arrive and the answer dropped past the cap, the caller's deadline
 * (an AbortSignal), at most a few redirects (each one a new URL, checked as the first), TLS trust
 * from --ca / --insecure. Every connection is held to the caller's address policy
 * (address-guard.ts: the lookup's addresses, a literal host, the socket's remote address once
 * connected), on every redirect hop, except connections to `trustedOrigin`: the origin of a URL
 * the person running the command typed, theirs to name.
 */
import { Agent, buildConnector, request } from 'undici';
import { type AddressPolicy, connectGuard, refusedAddressIn } from './address-guard.js';

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

/** A connector for `tls`, held to `policy` when one is given. */
function connectorFor(tls: DocumentTls | undefined, policy: AddressPolicy | undefined): buildConnector.connector {
  const guard = policy ? connectGuard(policy) : undefined;
  const base = buildConnector({
    ...(guard ? { lookup: guard.lookup as never } : {}),
    ...(tls?.ca ? { ca: tls.ca } : {}),
    ...(tls?.insecure ? { rejectUnauthorized: false } : {}),
  });
  return guard ? guard.wrap(base as never) : base;
}

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
  const agentFor = (policy: AddressPolicy | undefined) =>
    new Agent({ connect: connectorFor(tls, policy), connections: 1, maxResponseSize: options.maxBytes });
  const agents: { guarded?: Agent; trusted?: Agent } = {};
  // Each hop's own origin decides: a redirect from the typed origin to anywhere else is judged.
  const agentOf = (url: string): Agent => {
    if (options.trustedOrigin !== undefined && new URL(url).origin === options.trustedOrigin) {
      agents.trusted ??= agentFor(undefined);
      return agents.trusted;
    }
    agents.guarded ??= agentFor(options.policy);
    return agents.guarded;
  };
  try {
    let url = options.url;
    for (let redirect = 0; ; redirect += 1) {
      let answer: Awaited<ReturnType<typeof request>>;
      try {
        answer = await request(url, {
          dispatcher: agentOf(url),
          signal: options.signal,
          headers: {
            accept: 'application/yaml, application/json;q=0.9, */*;q=0.5',
            // Sent only to the URL's own origin: a redirect elsewhere goes without it.
            ...(options.authorization && new URL(url).origin === new URL(options.url).origin
              ? { authorization: options.authorization }
              : {}),
          },
        });
      } catch (error) {
        if (options.signal.aborted) throw options.signal.reason;
        const refused = refusedAddressIn(error);
        throw new FetchTextError(
          refused
            ? `refused: ${refused.message}`
            : `cannot be fetched (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
        );
      }
      const location = answer.headers.location;
      if (answer.statusCode >= 300 && answer.statusCode < 400 && typeof location === 'string') {
        await answer.body.dump();
        if (redirect >= maxRedirects) throw new FetchTextError(`redirected more than ${maxRedirects} times`);
        const next = new URL(location, url);
        if (next.protocol !== 'http:' && next.protocol !== 'https:')
          throw new FetchTextError(`redirected to a ${next.protocol} URL, which is not followed`);
        url = next.href;
        continue;
      }
      if (answer.statusCode !== 200) {
        await answer.body.dump();
        throw new FetchTextError(`answered ${answer.statusCode}, not the document`);
      }
      return { text: await boundedBody(answer.body, options.maxBytes), url };
    }
  } catch (error) {
    if (error instanceof FetchTextError && error.message.startsWith('cannot be fetched') && options.signal.aborted)
      throw options.signal.reason;
    throw error;
  } finally {
    for (const agent of [agents.guarded, agents.trusted]) agent?.destroy().catch(() => undefined);
  }
}

async function boundedBody(body: AsyncIterable<Buffer> & { destroy(): void }, maxBytes: number): Promise<string> {
  const chunks: Buffer[] = [];
  let total = 0;
  try {
    for await (const chunk of body) {
      total += chunk.length;
      if (total > maxBytes) {
        body.destroy();
        throw new FetchTextError(`its answer is larger than ${maxBytes} bytes, the most a document may be`);
      }
      chunks.push(chunk);
    }
  } catch (error) {
    if (error instanceof FetchTextError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    throw new FetchTextError(
      code === 'UND_ERR_RES_EXCEEDED_MAX_SIZE'
        ? `its answer is larger than ${maxBytes} bytes, the most a document may be`
        : `its answer was cut (${code ?? (error as Error).message})`,
    );
  }
  return Buffer.concat(chunks, total).toString('utf8');
}
