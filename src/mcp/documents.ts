/**
 * @module mcp/documents
 * An OpenAPI document for the `diff` and `conformance` tools, read exactly as the commands read
 * one: through the one document loader (src/documents), so its rules (regular files only, size,
 * YAML aliases, nesting, the $ref policy, a URL's own bounds) are the same for an agent. An
 * agent's URL is not one a person typed: every connection, the named URL's and its redirects'
 * included, is held to the server's address policy (A-45). A load stops when the tool call does
 * (`signal`: the client's cancel, the connection's end, the server's stop).
 */
import { type AddressPolicy, isHttpUrl } from '../documents/index.js';
import { specFileProblem } from '../documents/spec-file.js';
import { loadBundledDocument } from '../openapi/bundled-document.js';
import { type ContractDocument, InvalidSpecError, loadContract } from '../openapi/document.js';
import { ToolInputError } from './bounds.js';

/** The parsed, validated document at `source` (already checked against the server's access rules). */
export async function loadDiffDocument(options: {
  readonly source: string;
  readonly label: 'old' | 'new';
  readonly addressPolicy: AddressPolicy;
  readonly signal: AbortSignal;
}): Promise<Record<string, any>> {
  const { source, label, addressPolicy, signal } = options;
  if (!isHttpUrl(source)) {
    const problem = specFileProblem(source);
    if (problem) throw new ToolInputError(`${label}: ${problem}`);
  }
  try {
    return (await loadBundledDocument({ source, addressPolicy, trustNamedOrigin: false, signal })).document;
  } catch (error) {
    if (error instanceof InvalidSpecError)
      throw new ToolInputError(`${label} is not a valid OpenAPI 3.1 document: ${error.message.slice(0, 1000)}`);
    throw error;
  }
}

/** The document `conformance` checks against: a local path as the runner reads it, a URL loaded first. */
export async function loadConformanceSpec(options: {
  readonly source: string;
  readonly addressPolicy: AddressPolicy;
  readonly signal: AbortSignal;
}): Promise<string | ContractDocument> {
  const { source, addressPolicy, signal } = options;
  if (!isHttpUrl(source)) {
    const problem = specFileProblem(source);
    if (problem) throw new ToolInputError(`spec: ${problem}`);
    return source;
  }
  try {
    return await loadContract({ source, addressPolicy, trustNamedOrigin: false, signal });
  } catch (error) {
    if (error instanceof InvalidSpecError)
      throw new ToolInputError(`spec is not a valid OpenAPI 3.1 document: ${error.message.slice(0, 1000)}`);
    throw error;
  }
}
