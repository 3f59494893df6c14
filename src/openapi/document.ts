/**
 * @module openapi/document
 * Loads an OpenAPI 3.1 document with @apidevtools/swagger-parser (validated, then dereferenced)
 * and indexes its operations, so every consumer reads the spec the same way.
 */
import { type AddressPolicy, DocumentError, type DocumentTls, loadOpenApiDocument } from '../documents/index.js';
import { bundledSpecPath } from './package-root.js';

export type JsonSchema = Record<string, unknown>;

export const httpMethods = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;
export type HttpMethod = (typeof httpMethods)[number];

export interface ParameterDescription {
  readonly name: string;
  readonly in: 'path' | 'query' | 'header' | 'cookie';
  readonly required: boolean;
  readonly schema: JsonSchema;
}

export interface ResponseDescription {
  /** A status code such as '202', or 'default'. */
  readonly status: string;
  readonly description: string;
  /** Media type → schema (undefined when the media type has no schema). */
  readonly content: Readonly<Record<string, JsonSchema | undefined>>;
  /** Media type → named examples' values. */
  readonly examples: Readonly<Record<string, readonly unknown[]>>;
  /** The headers documented for this response (Content-Type aside, which OpenAPI says to ignore). */
  readonly headers?: readonly ResponseHeaderDescription[];
}

export interface ResponseHeaderDescription {
  /** Lower-cased, as HTTP compares header names. */
  readonly name: string;
  readonly required: boolean;
  /** The header's `schema` (undefined when it has none, or describes itself with `content`). */
  readonly schema: JsonSchema | undefined;
}

export interface OperationDescription {
  readonly operationId: string;
  readonly method: HttpMethod;
  /** The path template, e.g. /v0/jobs/{jobId}. */
  readonly path: string;
  readonly parameters: readonly ParameterDescription[];
  readonly requestBody?: {
    readonly required: boolean;
    readonly content: Readonly<Record<string, JsonSchema | undefined>>;
    readonly examples: Readonly<Record<string, readonly unknown[]>>;
  };
  readonly responses: readonly ResponseDescription[];
}

export interface ContractDocument {
  /** Where it was read from, as it may be printed: a path as given, or a URL with its credentials scrubbed. */
  readonly source: string;
  /** The dereferenced document. */
  readonly document: Record<string, any>;
  readonly operations: readonly OperationDescription[];
  /** components.schemas, dereferenced. */
  readonly schemas: Readonly<Record<string, JsonSchema>>;
}

/** Thrown when the document is not a valid OpenAPI document; `message` says where. */
export class InvalidSpecError extends Error {
  override readonly name = 'InvalidSpecError';
  /** Why, when the one loader refused it (src/documents DocumentProblem: 'budget', 'ref-refused', …). */
  readonly problem: string | undefined;
  constructor(message: string, options: { readonly problem?: string } = {}) {
    super(message);
    this.problem = options.problem;
  }
}

export interface LoadContractOptions {
  /** Path or http(s) URL of the document; defaults to the bundled spec/openapi.yaml. */
  readonly source?: string;
  /** Follow http(s) `$ref`s (never to loopback or private addresses); default false. */
  readonly allowRemoteRefs?: boolean;
  /** The folder relative `$ref`s may reach; default the document's own folder. */
  readonly refFolder?: string;
  /** Trust for an https URL (--ca, --insecure). */
  readonly tls?: DocumentTls | undefined;
  /** Bytes of each file the document draws in; default 16 MiB. */
  readonly maxBytes?: number;
  /** Which addresses its URLs may reach (src/documents address-guard, A-31); default strict. */
  readonly addressPolicy?: AddressPolicy;
  /** The named URL was typed by the person running the command (default true; A-31). */
  readonly trustNamedOrigin?: boolean;
  /** The caller's stop: the reading is abandoned when it aborts, and the load rejects with its reason. */
  readonly signal?: AbortSignal | undefined;
}

/**
 * Reads an OpenAPI document through the one loader (src/documents: bounded, the `$ref` policy of
 * A-31), validated and dereferenced, and indexes its operations. Throws InvalidSpecError.
 */
export async function loadContract(options: LoadContractOptions = {}): Promise<ContractDocument> {
  const named = options.source ?? bundledSpecPath();
  let document: Record<string, any>;
  let source: string;
  try {
    const loaded = await loadOpenApiDocument({
      source: named,
      mode: 'dereference',
      ...(options.allowRemoteRefs ? { allowRemoteRefs: true } : {}),
      ...(options.refFolder === undefined ? {} : { refFolder: options.refFolder }),
      ...(options.tls ? { tls: options.tls } : {}),
      ...(options.maxBytes === undefined ? {} : { maxBytes: options.maxBytes }),
      ...(options.addressPolicy ? { addressPolicy: options.addressPolicy } : {}),
      ...(options.trustNamedOrigin === undefined ? {} : { trustNamedOrigin: options.trustNamedOrigin }),
      ...(options.signal ? { signal: options.signal } : {}),
    });
    document = loaded.document;
    source = loaded.displayName;
  } catch (error) {
    if (error instanceof DocumentError) throw new InvalidSpecError(error.message, { problem: error.problem });
    throw error;
  }
  if (typeof document.openapi !== 'string' || !document.openapi.startsWith('3.1')) {
    throw new InvalidSpecError(`${source}: expected an OpenAPI 3.1 document, found ${String(document.openapi ?? document.swagger)}`);
  }
  return { source, document, operations: indexOperations(document), schemas: document.components?.schemas ?? {} };
}

function mediaTypes(content: Record<string, any> | undefined) {
  const schemas: Record<string, JsonSchema | undefined> = {};
  const examples: Record<string, unknown[]> = {};
  for (const [mediaType, media] of Object.entries(content ?? {})) {
    schemas[mediaType] = media.schema;
    const values: unknown[] = [];
    if (media.example !== undefined) values.push(media.example);
    for (const example of Object.values<any>(media.examples ?? {})) {
      if (example && 'value' in example) values.push(example.value);
    }
    examples[mediaType] = values;
  }
  return { schemas, examples };
}

function indexOperations(document: Record<string, any>): OperationDescription[] {
  const operations: OperationDescription[] = [];
  for (const [path, pathItem] of Object.entries<any>(document.paths ?? {})) {
    for (const method of httpMethods) {
      const operation = pathItem[method];
      if (!operation) continue;
      const parameters = [...(pathItem.parameters ?? []), ...(operation.parameters ?? [])].map(
        (parameter: any): ParameterDescription => ({
          name: parameter.name,
          in: parameter.in,
          required: parameter.required === true,
          schema: parameter.schema ?? {},
        }),
      );
      let requestBody: OperationDescription['requestBody'];
      if (operation.requestBody) {
        const { schemas, examples } = mediaTypes(operation.requestBody.content);
        requestBody = { required: operation.requestBody.required === true, content: schemas, examples };
      }
      const responses = Object.entries<any>(operation.responses ?? {}).map(([status, response]): ResponseDescription => {
        const { schemas, examples } = mediaTypes(response.content);
        const headers = responseHeaders(response.headers);
        return { status, description: response.description ?? '', content: schemas, examples, ...(headers.length > 0 ? { headers } : {}) };
      });
      operations.push({
        operationId: operation.operationId ?? `${method} ${path}`,
        method,
        path,
        parameters,
        ...(requestBody ? { requestBody } : {}),
        responses,
      });
    }
  }
  return operations;
}

function responseHeaders(headers: unknown): ResponseHeaderDescription[] {
  if (headers === null || typeof headers !== 'object') return [];
  return Object.entries(headers as Record<string, any>)
    .filter(([name, header]) => name.toLowerCase() !== 'content-type' && header !== null && typeof header === 'object')
    .map(([name, header]) => ({
      name: name.toLowerCase(),
      required: header.required === true,
      schema: header.schema !== null && typeof header.schema === 'object' ? (header.schema as JsonSchema) : undefined,
    }));
}
