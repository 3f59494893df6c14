/**
 * @module engine/inspector
 * The inspector page's files and the headers they are served with: a strict
 * Content-Security-Policy (scripts and styles only from the mock's own /__mock/ui files, fetches
 * only to its own origin, no framing), no caching, no sniffing.
 */
import { inspectorCss } from './css.js';
import { inspectorHtml } from './html.js';
import { inspectorPath } from './path.js';
import { inspectorScript } from './script.js';

const favicon =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="16" height="16" rx="3" fill="#0b57d0"/><path d="M4 8h8M8 4v8" stroke="#fff" stroke-width="2"/></svg>';

const contentSecurityPolicy = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const commonHeaders = {
  'content-security-policy': contentSecurityPolicy,
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
} as const;

/** The page's files by path under /__mock: text and media type. */
const files: Readonly<Record<string, { readonly body: string; readonly type: string }>> = {
  [inspectorPath]: { body: inspectorHtml, type: 'text/html; charset=utf-8' },
  [`${inspectorPath}/`]: { body: inspectorHtml, type: 'text/html; charset=utf-8' },
  [`${inspectorPath}/inspector.js`]: { body: inspectorScript, type: 'text/javascript; charset=utf-8' },
  [`${inspectorPath}/inspector.css`]: { body: inspectorCss, type: 'text/css; charset=utf-8' },
  // Without an icon of its own the browser asks for /favicon.ico, which the contract's 404
  // answers and the journal records: noise in the very journal the page shows.
  [`${inspectorPath}/favicon.svg`]: { body: favicon, type: 'image/svg+xml' },
};

/** The file at `path` (under /__mock) with its headers, or undefined when the page has none there. */
export function inspectorFile(path: string): { body: string; headers: Record<string, string> } | undefined {
  const file = Object.hasOwn(files, path) ? files[path] : undefined;
  return file ? { body: file.body, headers: { ...commonHeaders, 'content-type': file.type } } : undefined;
}
