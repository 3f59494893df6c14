/**
 * @module engine/inspector
 * The inspector page's files and the headers they are served with: a strict
 * Content-Security-Policy (scripts and styles only from the mock's own /__mock/ui files, fetches
 * only to its own origin, no framing), no caching, no sniffing.
 */
import { inspectorCss } from './css.js';
import { inspectorHtml } from './html.js';
import { inspectorScript } from './script.js';

export const inspectorPath = '/ui';

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
};

/** The file at `path` (under /__mock) with its headers, or undefined when the page has none there. */
export function inspectorFile(path: string): { body: string; headers: Record<string, string> } | undefined {
  const file = Object.hasOwn(files, path) ? files[path] : undefined;
  return file ? { body: file.body, headers: { ...commonHeaders, 'content-type': file.type } } : undefined;
}
