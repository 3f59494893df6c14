/**
 * @module cli/spec-file
 * `--spec FILE` checked as a file before it is read as a document, so that a mistyped path is
 * called a missing file (a mistake on the command line) and not an invalid OpenAPI document.
 */
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import type { AddressPolicy } from '../documents/index.js';
import { notRegularProblem } from '../server/regular-file.js';

/** Why `source` cannot be read as a local file, or undefined when it can (or is a URL, which the loader, src/documents, fetches). */
export function specFileProblem(source: string): string | undefined {
  if (/^[a-z][a-z\d+.-]*:\/\//i.test(source)) return undefined;
  if (source.trim() === '') return 'the value is empty';
  const where = `${source} (resolved to ${resolve(source)})`;
  try {
    // A FIFO or a device would hold the command in a read that never ends.
    const stats = statSync(resolve(source));
    return stats.isFile() ? undefined : `${where} ${notRegularProblem(stats)}`;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === 'ENOENT' ? `file not found: ${where}` : `${where} cannot be read: ${code ?? (error as Error).message}`;
  }
}

/** The advice that follows a --spec problem, the same for every command. */
export const specAdvice = 'pass the path or URL of an OpenAPI 3.1 document, or leave --spec out to read the bundled spec/openapi.yaml.';

/** `--allow-remote-refs`, the same for every command that reads an OpenAPI document. */
export const allowRemoteRefsOption = {
  kind: 'boolean',
  help: "follow the document's $refs to http(s) URLs, never to loopback, private or link-local addresses (default: only references inside the document and relative files in its folder are followed)",
} as const;

/**
 * `--allow-loopback` and `--allow-private`, the same for every command that reads a document
 * the address policy of its `$ref`s and of redirects away from the URL the person typed.
 * The typed URL's own origin is theirs to name, whatever these say.
 */
export const addressPolicyOptions = {
  'allow-loopback': {
    kind: 'boolean',
    help: "let a remote $ref, or a redirect away from the URL given, reach this machine: loopback, 0.0.0.0/::, this machine's own interface addresses (default: refused; the URL given may be on this machine)",
  },
  'allow-private': {
    kind: 'boolean',
    help: 'let a remote $ref, or a redirect away from the URL given, reach private networks: 10/8, 172.16/12, 192.168/16, link-local 169.254/16 and fe80::/10, CGNAT 100.64/10, unique-local fc00::/7 (default: refused)',
  },
} as const;

/** The address policy the two flags name. */
export function addressPolicyFrom(values: { readonly 'allow-loopback'?: boolean; readonly 'allow-private'?: boolean }): AddressPolicy {
  return { allowLoopback: values['allow-loopback'] === true, allowPrivate: values['allow-private'] === true };
}
