/**
 * @module mcp/bounds
 * What the MCP server lets in and what it lets out. In: a path a tool names must lie inside the
 * project (the working directory) unless the server was started allowing any path, a URL must
 * be http(s) and not loopback unless allowed, a JSON value is bounded in depth and size before
 * it is serialised. Out: every result is scrubbed by the project's one scrubber and cut to a
 * size an agent's context can hold, saying so when it was cut.
 */
import { lookup } from 'node:dns/promises';
import { realpathSync } from 'node:fs';
import { isIP } from 'node:net';
import { isAbsolute, relative, resolve } from 'node:path';
import type { Scrubber } from '../contract/secrets.js';

/** A tool's refusal: the SDK turns it into a tool error (`isError: true`) with this message. */
export class ToolInputError extends Error {
  override readonly name = 'ToolInputError';
}

export interface McpAccess {
  /** The folder paths must lie in (default: the working directory at start). */
  readonly projectRoot: string;
  /** Any path on the machine may be named (`--allow-any-path`). */
  readonly anyPath: boolean;
  /** URLs to this machine may be named (`--allow-loopback`). */
  readonly loopback: boolean;
}

/** Characters of one tool result's text at most; beyond, it is cut and says so. */
export const maxResultChars = 64 * 1024;
/** Nesting a JSON argument may have (a scenario is about 6 deep). */
export const maxArgumentDepth = 32;

/** `path` resolved, refused when it leaves the project (symbolic links followed) and paths outside are not allowed. */
export function checkedPath(path: string, access: McpAccess, label: string): string {
  if (path.includes('\0')) throw new ToolInputError(`${label}: a path may not hold a NUL character`);
  const full = resolve(access.projectRoot, path);
  if (access.anyPath) return full;
  let real = full;
  try {
    real = realpathSync(full);
  } catch {
    // A path that does not exist is the loader's to report; its spelled-out place is checked.
  }
  const root = safeRealpath(access.projectRoot);
  const inside = (candidate: string) => {
    const rel = relative(root, candidate);
    return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
  };
  if (!inside(full) || !inside(real))
    throw new ToolInputError(
      `${label}: ${path.slice(0, 200)} is outside the project (${root}); start the server with --allow-any-path to name it`,
    );
  return full;
}

function safeRealpath(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}

const loopbackHost =
  /^(localhost|.*\.localhost|127\.\d{1,3}\.\d{1,3}\.\d{1,3}|\[::1\]|\[::ffff:127\.\d{1,3}\.\d{1,3}\.\d{1,3}\]|\[::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}\]|0\.0\.0\.0|\[::\])$/i;

/** True when `url`'s host is this machine (names, IPv4 127/8, IPv6 ::1 and its mapped forms). */
export function isLoopbackUrl(url: URL): boolean {
  // A trailing dot names the same host (`localhost.`).
  return loopbackHost.test(url.hostname.replace(/\.$/, ''));
}

/** An http(s) URL, refused when it names this machine and loopback is not allowed. */
export function checkedUrl(text: string, access: McpAccess, label: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new ToolInputError(`${label}: not a URL (${text.slice(0, 200)})`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new ToolInputError(`${label}: only http and https URLs are followed, not ${url.protocol.slice(0, 20)}`);
  if (!access.loopback && isLoopbackUrl(url))
    throw new ToolInputError(`${label}: ${url.host} is this machine; start the server with --allow-loopback to name it`);
  return url.href;
}

const loopbackAddress = /^(127\.\d{1,3}\.\d{1,3}\.\d{1,3}|::1|::ffff:127\.\d{1,3}\.\d{1,3}\.\d{1,3}|0\.0\.0\.0|::)$/i;

/**
 * `checkedUrl`, and when loopback is refused, the host's addresses too: a name that resolves to
 * this machine (`127.0.0.1.nip.io`, an /etc/hosts entry) is refused like `localhost`. A name
 * that does not resolve passes: the runner or the reader then says it is unreachable.
 */
export async function checkedRemoteUrl(text: string, access: McpAccess, label: string): Promise<string> {
  const href = checkedUrl(text, access, label);
  if (access.loopback) return href;
  const host = new URL(href).hostname.replace(/^\[|\]$/g, '');
  if (isIP(host)) return href;
  let addresses: { address: string }[] = [];
  try {
    addresses = await lookup(host, { all: true });
  } catch {
    return href;
  }
  if (addresses.some(({ address }) => loopbackAddress.test(address)))
    throw new ToolInputError(`${label}: ${host.slice(0, 200)} resolves to this machine; start the server with --allow-loopback to name it`);
  return href;
}

const hasScheme = (source: string) => /^[a-z][a-z0-9+.-]*:\/\//i.test(source);

/** A path or an http(s) URL, each checked by its own rule. */
export async function checkedSource(source: string, access: McpAccess, label: string): Promise<string> {
  return hasScheme(source) ? checkedRemoteUrl(source, access, label) : checkedPath(source, access, label);
}

/** Refuses a JSON value nested deeper than `maxArgumentDepth`, without recursion. */
export function checkDepth(value: unknown, label: string): void {
  const stack: { value: unknown; depth: number }[] = [{ value, depth: 0 }];
  let visited = 0;
  while (stack.length > 0) {
    const { value: node, depth } = stack.pop()!;
    if (node === null || typeof node !== 'object') continue;
    if (depth >= maxArgumentDepth) throw new ToolInputError(`${label}: nested more than ${maxArgumentDepth} deep`);
    visited += 1;
    if (visited > 100_000) throw new ToolInputError(`${label}: more than 100000 objects and arrays`);
    for (const child of Object.values(node)) stack.push({ value: child, depth: depth + 1 });
  }
}

/** A tool's result: JSON text, scrubbed, cut to `maxResultChars` with a note saying how much there was. */
export function boundedResult(value: unknown, scrubber: Scrubber): { content: [{ type: 'text'; text: string }] } {
  const text = scrubber.scrub(typeof value === 'string' ? value : (JSON.stringify(value, null, 2) ?? 'null'));
  const cut =
    text.length > maxResultChars
      ? `${text.slice(0, maxResultChars)}\n… cut: ${text.length - maxResultChars} more characters (narrow the call: a limit, a filter)`
      : text;
  return { content: [{ type: 'text', text: cut }] };
}
