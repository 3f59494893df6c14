/**
 * @module mcp/documents
 * An OpenAPI document for the `diff` tool, read exactly as `evidence-harness diff` reads one:
 * a local file through `loadBundledDocument` (its size first), a URL through the CLI's
 * `readSpecFromUrl`, so the loader's rules (validation, alias bombs, size) are the same.
 */
import { statSync } from 'node:fs';
import { specFileProblem } from '../cli/spec-file.js';
import { isHttpUrl, maxSpecBytes, readSpecFromUrl } from '../cli/spec-url.js';
import { type BundledDocument, loadBundledDocument } from '../openapi/bundled-document.js';
import { type ContractDocument, InvalidSpecError, loadContract } from '../openapi/document.js';
import { ToolInputError } from './bounds.js';

/** The parsed, validated document at `source` (already checked against the server's access rules). */
export async function loadDiffDocument(source: string, label: 'old' | 'new'): Promise<Record<string, any>> {
  try {
    let bundled: BundledDocument;
    if (isHttpUrl(source)) {
      bundled = await readSpecFromUrl({ url: source, tls: undefined, read: (file) => loadBundledDocument({ source: file }) });
    } else {
      const problem = specFileProblem(source);
      if (problem) throw new ToolInputError(`${label}: ${problem}`);
      if (statSync(source).size > maxSpecBytes)
        throw new ToolInputError(`${label}: the file is larger than the ${maxSpecBytes} bytes diff reads`);
      bundled = await loadBundledDocument({ source });
    }
    return bundled.document;
  } catch (error) {
    if (error instanceof InvalidSpecError)
      throw new ToolInputError(`${label} is not a valid OpenAPI 3.1 document: ${error.message.slice(0, 1000)}`);
    throw error;
  }
}

/** The document `conformance` checks against: a local path as the runner reads it, a URL fetched with the CLI's bounds first. */
export async function loadConformanceSpec(source: string): Promise<string | ContractDocument> {
  if (!isHttpUrl(source)) {
    const problem = specFileProblem(source);
    if (problem) throw new ToolInputError(`spec: ${problem}`);
    return source;
  }
  try {
    return await readSpecFromUrl({ url: source, tls: undefined, read: (file) => loadContract({ source: file }) });
  } catch (error) {
    if (error instanceof InvalidSpecError)
      throw new ToolInputError(`spec is not a valid OpenAPI 3.1 document: ${error.message.slice(0, 1000)}`);
    throw error;
  }
}
