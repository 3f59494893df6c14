/**
 * @module openapi/bundled-document
 * An OpenAPI 3.1 document read once through the one loader (src/documents), validated as
 * `loadContract` validates it, and kept bundled rather than dereferenced: every `$ref` made local
 * but left in place, so that the diff (src/evolution) can follow references itself, see where a
 * schema is defined, and stop at a recursive one instead of meeting a cyclic object. Every file a
 * `$ref` draws in is held to the same bounds as the named one (YAML aliases, nesting, size).
 */
import { type AddressPolicy, DocumentError, type DocumentTls, loadOpenApiDocument } from '../documents/index.js';
import { InvalidSpecError } from './document.js';

export interface BundledDocument {
  /** How to name it in output: a path as given, or a URL with its credentials scrubbed. */
  readonly source: string;
  /** The bundled document: plain JSON values, every $ref local (`#/...`). */
  readonly document: Record<string, any>;
}

export async function loadBundledDocument(options: {
  readonly source: string;
  readonly allowRemoteRefs?: boolean;
  readonly tls?: DocumentTls | undefined;
  readonly maxBytes?: number;
  /** Values the named document may hold (the loader's `maxValues`). */
  readonly maxValues?: number;
  /** Which addresses its URLs may reach; default strict. */
  readonly addressPolicy?: AddressPolicy;
  /** The named URL was typed by the person running the command (default true; A-31). */
  readonly trustNamedOrigin?: boolean;
  /** The caller's stop: the reading is abandoned when it aborts, and the load rejects with its reason. */
  readonly signal?: AbortSignal | undefined;
}): Promise<BundledDocument> {
  let loaded: Awaited<ReturnType<typeof loadOpenApiDocument>>;
  try {
    loaded = await loadOpenApiDocument({
      source: options.source,
      mode: 'bundle',
      ...(options.allowRemoteRefs ? { allowRemoteRefs: true } : {}),
      ...(options.tls ? { tls: options.tls } : {}),
      ...(options.maxBytes === undefined ? {} : { maxBytes: options.maxBytes }),
      ...(options.maxValues === undefined ? {} : { maxValues: options.maxValues }),
      ...(options.addressPolicy ? { addressPolicy: options.addressPolicy } : {}),
      ...(options.trustNamedOrigin === undefined ? {} : { trustNamedOrigin: options.trustNamedOrigin }),
      ...(options.signal ? { signal: options.signal } : {}),
    });
  } catch (error) {
    if (error instanceof DocumentError) throw new InvalidSpecError(error.message, { problem: error.problem });
    throw error;
  }
  const { document } = loaded;
  if (typeof document.openapi !== 'string' || !document.openapi.startsWith('3.1')) {
    throw new InvalidSpecError(
      `${loaded.displayName}: expected an OpenAPI 3.1 document, found ${String(document.openapi ?? document.swagger)}`,
    );
  }
  return { source: loaded.displayName, document };
}
