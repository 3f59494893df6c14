/**
 * @module mcp/bounds
 * What the MCP server lets in and what it lets out. In: a path a tool names must lie inside the
 * project (the working directory) unless the server was started allowing any path, a URL must
 * be http(s) and reach only what the server's address policy allows (src/documents
 * address-guard: strict unless --allow-loopback / --allow-private; checked here for a precise
 * message, and again on every connection the tools make), a JSON value is bounded in depth and
 * size before it is serialised. Out: every result is scrubbed by the project's one scrubber (a
 * URL's user name and password included) and cut to a size an agent's context can hold, saying
 * so when it was cut.
 */
import { realpathSync } from 'node:fs';
import { isAbsolute, relative, resolve } from 'node:path';
import type { Scrubber } from '../contract/secrets.js';
import { type AddressPolicy, hostRefusal } from '../documents/index.js';

/** A tool's refusal: the SDK turns it into a tool error (`isError: true`) with this message. */
export class ToolInputError extends Error {
  override readonly name = 'ToolInputError';
}

export interface McpAccess {
  /** The folder paths must lie in (default: the working directory at start). */
  readonly projectRoot: string;
  /** Any path on the machine may be named (`--allow-any-path`). */
  readonly anyPath: boolean;
  /**
   * Which addresses a URL a tool is given may reach: strict by default (an agent can be
   * prompt-injected), `--allow-loopback` and `--allow-private` open their classes (A-45).
   */
  readonly addresses: AddressPolicy;
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

/** An http(s) URL; never echoed whole (it may carry a user name and password). */
export function checkedUrl(text: string, label: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new ToolInputError(`${label}: not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new ToolInputError(`${label}: only http and https URLs are followed, not ${url.protocol.slice(0, 20)}`);
  return url;
}

/**
 * `checkedUrl`, and its host judged by the server's address policy now (a literal, or every
 * address a name resolves to), for a message that says which class was refused and which flag
 * opens it. The door itself is the connection: every tool connects through the same policy
 * (`connectGuard`), so a name that resolves elsewhere the second time is still refused.
 */
export async function checkedRemoteUrl(text: string, access: McpAccess, label: string): Promise<string> {
  const url = checkedUrl(text, label);
  const refused = await hostRefusal(url.hostname, access.addresses);
  if (refused)
    throw new ToolInputError(
      `${label}: ${refused.message}; ${refused.flag ? `start the server with ${refused.flag} to name it` : 'it is never reached'}`,
    );
  return text;
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
  const text = withoutUrlCredentials(
    scrubber.scrub(typeof value === 'string' ? value : (JSON.stringify(value, null, 2) ?? 'null')),
    scrubber,
  );
  const cut =
    text.length > maxResultChars
      ? `${text.slice(0, maxResultChars)}\n… cut: ${text.length - maxResultChars} more characters (narrow the call: a limit, a filter)`
      : text;
  return { content: [{ type: 'text', text: cut }] };
}

/** Every http(s) URL in `text` without its user name, password or credential parameters' values. */
export function withoutUrlCredentials(text: string, scrubber: Scrubber): string {
  return text.replace(/https?:\/\/[^\s"'`)<>]+/gi, (url) => (url.includes('@') || url.includes('?') ? scrubber.scrubUrl(url) : url));
}
