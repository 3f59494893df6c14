/**
 * @module client/evidence-client
 * The typed client: openapi-fetch over the generated types, so every path, parameter, body and
 * response of spec/openapi.yaml is checked by the compiler.
 */
import createClient, { type Client } from 'openapi-fetch';
import type { ReadonlyRequestBodies } from './readonly-requests.js';
import type { paths } from './schema.js';

/** The generated paths with readonly request bodies, so `as const` fixtures are accepted as bodies. */
export type ClientPaths = ReadonlyRequestBodies<paths>;

/** A client for the contract's four operations: `client.GET('/v0/jobs/{jobId}', …)` and so on. */
export type EvidenceClient = Client<ClientPaths>;

export interface EvidenceClientOptions {
  /** Where the service (or the mock) answers, such as 'http://127.0.0.1:4010'; the contract's paths are appended. */
  readonly baseUrl: string;
  /** Sent with every request, such as `{ Authorization: 'Bearer …' }` (the mock scopes jobs and keys per Authorization value). */
  readonly headers?: Record<string, string>;
  /** The fetch to send requests with. Default: the global fetch, looked up at each request. */
  readonly fetch?: (request: Request) => Promise<Response>;
}

/**
 * @example
 * const client = createEvidenceClient({ baseUrl: 'http://127.0.0.1:4010' });
 * const { data, error, response } = await client.GET('/v0/jobs/{jobId}', { params: { path: { jobId } } });
 */
export function createEvidenceClient(options: EvidenceClientOptions): EvidenceClient {
  return createClient<ClientPaths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    ...(options.headers ? { headers: options.headers } : {}),
    // openapi-fetch keeps the global fetch it finds at creation; looking it up per request means a
    // client created before MSW's server.listen() or worker.start() is still intercepted.
    fetch: options.fetch ?? ((request) => globalThis.fetch(request)),
  });
}
