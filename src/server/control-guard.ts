/**
 * @module server/control-guard
 * Who may drive the control API (/__mock/) over HTTP. The control API lists every job and its
 * caller, switches scenarios and resets state, so a web page open in the developer's browser
 * must not reach it: not cross-origin (no CORS unless its origin is listed with
 * `--control-origin`; a listed-nowhere Origin is refused outright, since a "simple" POST would
 * act before the browser hides its answer), and not through DNS rebinding (a Host that is not
 * this machine is refused while no control token is in force; with a token, the token guards).
 * docs/assumptions.md A-20.
 */
import { isLoopbackHostName } from '../documents/address-guard.js';
import { type EngineAnswer, errorAnswer } from '../engine/index.js';

export interface ControlGuardOptions {
  /** The address the server listens on, as given (`127.0.0.1`, `::1`, `localhost`, …). */
  readonly listeningHost: string;
  /** Serialised origins (`http://localhost:5173`) whose pages may call the control API. */
  readonly origins: readonly string[];
  /** A control token is in force: it is then the guard, and any Host is accepted. */
  readonly tokenInForce: boolean;
}

/** The request headers the guard reads (Node's IncomingMessage.headers has this shape). */
export interface GuardedRequest {
  readonly host: string | undefined;
  readonly origin: string | undefined;
}

export type ControlVerdict =
  | { readonly allowed: true; readonly headers: Record<string, string>; readonly preflightHeaders: Record<string, string> }
  | { readonly allowed: false; readonly answer: EngineAnswer };

export interface ControlGuard {
  check(request: GuardedRequest): ControlVerdict;
}

/** Longest Host header examined; a real one is a name of at most 253 characters and a port. */
const maxHostLength = 300;
/** How much of a refused Origin or Host the error message quotes. */
const quotedLength = 100;

/** `value` for a message: cut to `quotedLength` characters and shown in quotes. */
function quoted(value: string): string {
  return `'${value.length > quotedLength ? `${value.slice(0, quotedLength)}…` : value}'`;
}

/**
 * The control API's own refusals. Their codes belong to spec/control-api.yaml, as
 * control_token_required does, not to the contract's closed set (A-7); errorAnswer is still the
 * one builder of Error bodies, which caps the message at the schema's 1,024 characters.
 */
function refusal(options: { status: number; code: 'control_host_refused' | 'control_origin_refused'; message: string }): EngineAnswer {
  return errorAnswer({ status: options.status, code: options.code, message: options.message });
}

function isDigits(text: string): boolean {
  if (text.length === 0) return false;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (code < 0x30 || code > 0x39) return false;
  }
  return true;
}

/**
 * The host name of a Host header value (`name`, `name:port`, `[v6]`, `[v6]:port`), lower-cased
 * and without brackets; undefined when it is not one of those shapes. Strict on purpose: a
 * browser, the only client this guard is for, always sends one of them.
 */
export function hostNameOf(value: string): string | undefined {
  if (value.length === 0 || value.length > maxHostLength) return undefined;
  let name: string;
  let rest: string;
  if (value.startsWith('[')) {
    const close = value.indexOf(']');
    if (close < 0) return undefined;
    name = value.slice(1, close);
    rest = value.slice(close + 1);
  } else {
    const colon = value.indexOf(':');
    name = colon < 0 ? value : value.slice(0, colon);
    rest = colon < 0 ? '' : value.slice(colon);
  }
  if (rest !== '' && !(rest.startsWith(':') && isDigits(rest.slice(1)) && rest.length <= 6)) return undefined;
  return name.length > 0 ? name.toLowerCase() : undefined;
}

/** True when a request whose Host is `host` can only have been addressed to this machine. */
export function isLocalHostHeader(options: { host: string | undefined; listeningHost: string }): boolean {
  const name = options.host === undefined ? undefined : hostNameOf(options.host);
  if (name === undefined) return false;
  const listening = options.listeningHost.toLowerCase().replace(/^\[|\]$/g, '');
  // Which names are this machine's alone is the one address guard's decision (isLoopbackHostName).
  return name === listening || isLoopbackHostName(name);
}

/**
 * An allow-list entry as browsers serialise an Origin (`http://localhost:5173`, no path),
 * or a RangeError saying what is wrong with it. `*` and `null` are refused: they would hand the
 * control API to any page, or to any sandboxed one.
 */
export function normalizeControlOrigin(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw originError(value);
  }
  const onlyAnOrigin =
    (url.protocol === 'http:' || url.protocol === 'https:') &&
    url.pathname === '/' &&
    url.search === '' &&
    url.hash === '' &&
    url.username === '' &&
    url.password === '';
  if (!onlyAnOrigin) throw originError(value);
  return url.origin;
}

function originError(value: string): RangeError {
  return new RangeError(`a control origin must be a scheme, host and optional port such as 'http://localhost:5173', got ${quoted(value)}`);
}

/** True when `origin` names the host (and port) the request was addressed to: a page of the mock itself. */
function isSameOrigin(options: { origin: string; host: string | undefined }): boolean {
  if (options.host === undefined || options.host.length > maxHostLength) return false;
  try {
    const url = new URL(options.origin);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.host === options.host.toLowerCase();
  } catch {
    return false;
  }
}

const exposed = 'Content-Length';

export function createControlGuard(options: ControlGuardOptions): ControlGuard {
  const origins = new Set(options.origins.map(normalizeControlOrigin));
  // Answers differ by Origin once some origins are allowed: shared caches must keep them apart.
  const vary: Record<string, string> = origins.size > 0 ? { vary: 'Origin' } : {};
  return {
    check(request) {
      if (!options.tokenInForce && !isLocalHostHeader({ host: request.host, listeningHost: options.listeningHost })) {
        return {
          allowed: false,
          answer: refusal({
            status: 403,
            code: 'control_host_refused',
            message:
              `The control API answers only requests addressed to this machine (Host ${options.listeningHost}, localhost or a loopback address), ` +
              `not Host ${request.host === undefined ? '(none)' : quoted(request.host)}: a foreign Host is how a web page reaches a local server through DNS rebinding.`,
          }),
        };
      }
      const origin = request.origin;
      // The inspector page (/__mock/ui) is served by the mock itself: its own POSTs carry the
      // mock's origin, which no listing is needed for. The Host check above already holds (or a
      // token is in force), so this cannot open the control API to a rebinding page.
      if (origin === undefined || isSameOrigin({ origin, host: request.host }))
        return { allowed: true, headers: vary, preflightHeaders: vary };
      if (!origins.has(origin)) {
        return {
          allowed: false,
          answer: refusal({
            status: 403,
            code: 'control_origin_refused',
            message:
              `The control API does not answer web pages of origin ${quoted(origin)}; ` +
              'start the mock with --control-origin ORIGIN (startMockServer: controlOrigins) to allow one.',
          }),
        };
      }
      const headers = { ...vary, 'access-control-allow-origin': origin, 'access-control-expose-headers': exposed };
      return {
        allowed: true,
        headers,
        preflightHeaders: {
          ...headers,
          'access-control-allow-methods': 'GET, PUT, POST, DELETE',
          'access-control-allow-headers': 'Content-Type, X-Mock-Token, X-Mock-Session',
          'access-control-max-age': '600',
        },
      };
    },
  };
}
