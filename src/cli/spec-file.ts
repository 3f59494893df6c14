/**
 * @module cli/spec-file
 * `--spec FILE` checked as a file before it is read as a document, so that a mistyped path is
 * called a missing file (a mistake on the command line) and not an invalid OpenAPI document.
 */
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
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
