/**
 * @module documents/spec-file
 * A document path checked as a file before it is read as a document, so that a mistyped path is
 * called a missing file (a mistake of the caller: `--spec FILE`, an MCP tool's `spec`) and not an
 * invalid OpenAPI document.
 */
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { notRegularProblem } from './regular-file.js';

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
