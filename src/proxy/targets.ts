/**
 * @module proxy/targets
 * The request-target rules of a reverse proxy (RFC 9112 §3.2): origin-form is forwarded as it is;
 * absolute-form naming the proxy itself is rewritten to origin-form, because the upstream would
 * take the authority from an absolute target, not from Host (§3.2.2); absolute-form naming any
 * other authority is refused, never forwarded; userinfo goes with the authority (the one scrubber
 * learns it from the raw target, so it is never logged or recorded either).
 */
import { isLoopbackHostName } from '../documents/address-guard.js';

export type TargetVerdict =
  /** `target`: path and query, origin-form (userinfo goes with the authority). */
  { readonly ok: true; readonly target: string } | { readonly ok: false; readonly message: string };

/** The names a client on this machine uses for a proxy listening on loopback. */
const loopbackNames = ['127.0.0.1', 'localhost', '[::1]'];

/** host:port of a URL with the scheme's default port written out. */
function authorityOf(url: URL): string {
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  return `${url.hostname.toLowerCase()}:${port}`;
}

/** The authorities the proxy answers to: its listening host and port, and the loopback names when it listens on loopback. */
export function ownAuthorities(options: { host: string; port: number }): Set<string> {
  const bracketed = options.host.includes(':') ? `[${options.host}]` : options.host.toLowerCase();
  // Whether it listens on loopback is the one address guard's decision (isLoopbackHostName).
  const names = isLoopbackHostName(options.host) ? [...new Set([bracketed, ...loopbackNames])] : [bracketed];
  return new Set(names.map((name) => `${name}:${options.port}`));
}

/** Judges a request target against the proxy's own authorities. */
export function judgeTarget(target: string, own: ReadonlySet<string>): TargetVerdict {
  if (target.startsWith('/')) return { ok: true, target };
  // OPTIONS * asks about the server as a whole; the contract has no use for it and the upstream
  // client sends paths only.
  if (target === '*') return { ok: false, message: "The request target '*' (OPTIONS for the whole server) is not forwarded." };
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    return { ok: false, message: 'The request target is neither a path nor an absolute URL.' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return {
      ok: false,
      message: `The request target names the scheme '${url.protocol.slice(0, 20)}'; the proxy forwards http only.`,
    };
  if (!own.has(authorityOf(url)))
    return {
      ok: false,
      message: 'The request target names another host than this proxy; a reverse proxy forwards only to its upstream, so it was not sent.',
    };
  return { ok: true, target: `${url.pathname}${url.search}` };
}
