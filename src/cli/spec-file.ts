/**
 * @module cli/spec-file
 * What every command that reads an OpenAPI document says about `--spec` and its $refs. The check
 * of the path itself is the document loader's (src/documents/spec-file.ts), which the MCP tools
 * share.
 */

/** The advice that follows a --spec problem, the same for every command. */
export const specAdvice = 'pass the path or URL of an OpenAPI 3.1 document, or leave --spec out to read the bundled spec/openapi.yaml.';

/** `--allow-remote-refs`, the same for every command that reads an OpenAPI document. */
export const allowRemoteRefsOption = {
  kind: 'boolean',
  help: "follow the document's $refs to http(s) URLs, never to loopback, private or link-local addresses (default: only references inside the document and relative files in its folder are followed)",
} as const;
