/**
 * @module documents
 * The one loader of documents from outside (Node only: it reads files and fetches URLs). See
 * load-document.ts for what it holds every document to, ref-policy.ts for which `$ref`s are
 * followed, address-guard.ts for where a remote one may connect.
 */

export {
  type AddressClass,
  type AddressPolicy,
  addressClass,
  addressRefusal,
  type ConnectGuard,
  connectGuard,
  hostRefusal,
  isLoopbackHostName,
  RefusedAddressError,
  refusedAddressIn,
  refusedAddressReason,
  strictAddressPolicy,
} from './address-guard.js';
export type { DocumentTls } from './fetch-text.js';
export {
  DocumentError,
  type DocumentProblem,
  type DocumentPurpose,
  type DocumentReadOptions,
  displaySource,
  isHttpUrl,
  type LoadDocumentOptions,
  type LoadedDocument,
  type LoadedOpenApiDocument,
  type LoadOpenApiOptions,
  loadDocument,
  loadOpenApiDocument,
} from './load-document.js';
export { type DocumentBase, type RefPolicy, remoteAdvice } from './ref-policy.js';
// The file reader of A-27, for documents read whole with no parsing of ours (a workflow file,
// whose own reader parses it): a regular file only, bounded, never opened for a blocking read.
// readDocumentFileSync is the same reader for a file named by an option and read while the
// options are parsed (--ca, a report to replay, diff --coverage).
export {
  readRegularFile as readDocumentFile,
  readRegularFileSync as readDocumentFileSync,
  UserFileError as DocumentFileError,
} from './regular-file.js';
