/**
 * @module cli/spec-file
 * What every command that reads an OpenAPI document says about `--spec` and its $refs. The check
 * of the path itself is the document loader's (src/documents/spec-file.ts), which the MCP tools
 * share.
 */
import type { AddressPolicy } from '../documents/index.js';

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
