/**
 * @module engine/pact/pact-writer
 * The Pact V4 document for what a recorder kept: one `Synchronous/HTTP` interaction per
 * behaviour, with the provider state the engine was in, matching rules read from the schema
 * (so no job id, digest or timestamp is pinned to the value seen), a provider-state generator
 * for a path that names a job the state creates, and every credential the calls carried
 * scrubbed out. Credential headers themselves are left out (docs/assumptions.md A-29): the
 * provider's verification adds its own.
 */
import type * as z from 'zod';
import { ErrorBody, VerificationResult } from '../../contract/index.js';
import type { Scrubber } from '../../contract/secrets.js';
import type { EngineContract } from '../engine-contract.js';
import { addBodyRules, jsonContentTypeRule, jsonSchemaOf, pathSegmentRule } from './matching-rules.js';
import type { PactBody, PactMatcherList, PactMatchingRules, PactParties, PactSynchronousHttp, PactV4 } from './pact-v4.js';
import type { RecordedExchange } from './recorder.js';

function parsed(text: string | undefined): { ok: true; value: unknown } | { ok: false } {
  if (text === undefined) return { ok: false };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

const isJsonType = (type: string | undefined) => type !== undefined && /^application\/(?:[\w.+-]+\+)?json\b/i.test(type);

/** `text`'s UTF-8 bytes in base64 (no Buffer: the engine runs in browsers too). */
function base64OfUtf8(text: string): string {
  let binary = '';
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/**
 * A body as the pact carries it: JSON as a value; anything else as its bytes in base64, because
 * Pact's core would send a plain string under a JSON content type as a JSON string, quoted,
 * which is not what the client sent. Base64 hides a credential from the final scrub, so such a
 * body is scrubbed here, before it is encoded.
 */
function bodyOf(text: string | undefined, contentType: string | undefined, scrubber: Scrubber): { body?: PactBody; json?: unknown } {
  if (text === undefined) return {};
  const json = isJsonType(contentType) ? parsed(text) : { ok: false as const };
  if (json.ok) return { body: { content: json.value, contentType: contentType!, encoded: false }, json: json.value };
  return {
    body: { content: base64OfUtf8(scrubber.scrub(text)), contentType: contentType ?? 'application/octet-stream', encoded: 'base64' },
  };
}

/** The schema of the request body of an operation the engine has behaviour for. */
function requestSchema(exchange: RecordedExchange, contract: EngineContract): z.ZodType | undefined {
  if (exchange.operationId === 'createEvaluation') return contract.createEvaluation.body;
  if (exchange.operationId === 'verifyReport') return contract.verifyReport.body;
  return undefined;
}

/** The schema of the answer's body, by operation and status; undefined for answers the contract leaves open. */
function responseSchema(exchange: RecordedExchange, contract: EngineContract, json: unknown): z.ZodType | undefined {
  const { operationId, status } = exchange;
  if ((operationId === 'createEvaluation' && status === 202) || (operationId === 'getJob' && status === 200)) return contract.job;
  if (operationId === 'verifyReport' && status === 200) return VerificationResult;
  if (status >= 400 && json !== null && typeof json === 'object' && 'code' in json && 'message' in json) return ErrorBody;
  return undefined;
}

function nonEmpty<T extends object>(value: T): T | undefined {
  return Object.keys(value).length > 0 ? value : undefined;
}

/** A short stable hash (FNV-1a, 64 bits as two halves) of a behaviour's key: the interaction's V4 key. */
function interactionKey(text: string): string {
  let low = 0x811c9dc5;
  let high = 0x01000193;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    low = Math.imul(low ^ code, 0x01000193) >>> 0;
    high = Math.imul(high ^ code, 0x811c9dc5) >>> 0;
  }
  return low.toString(16).padStart(8, '0') + high.toString(16).padStart(8, '0');
}

function describe(exchange: RecordedExchange): string {
  const code = exchange.code === undefined ? '' : ` (${exchange.code})`;
  const limited = exchange.state?.params.limitations === undefined ? '' : ' and limitations';
  const given = exchange.state ? `, given ${exchange.state.name}${limited}` : '';
  return `${exchange.operationId}: ${exchange.method} answered ${exchange.status}${code}${given}`;
}

function interaction(exchange: RecordedExchange, contract: EngineContract, scrubber: Scrubber): PactSynchronousHttp {
  const request = bodyOf(exchange.requestBody, exchange.requestHeaders['Content-Type'], scrubber);
  const requestBodyRules: Record<string, PactMatcherList> = {};
  if (request.json !== undefined) {
    const schema = requestSchema(exchange, contract);
    addBodyRules({ schema: schema && jsonSchemaOf(schema), value: request.json, path: '$', rules: requestBodyRules });
  }
  const requestRules: PactMatchingRules = {
    ...(nonEmpty(requestBodyRules) ? { body: requestBodyRules } : {}),
    ...(exchange.pathExpression ? { path: pathSegmentRule(exchange.path.slice(0, exchange.path.lastIndexOf('/') + 1)) } : {}),
  };
  // Health's body is not shown by the contract (section 4): a pact that pinned it would assert what the contract does not.
  const response = exchange.operationId === 'health' ? {} : bodyOf(exchange.responseBody, exchange.responseContentType, scrubber);
  const responseBodyRules: Record<string, PactMatcherList> = {};
  if (response.json !== undefined) {
    const schema = responseSchema(exchange, contract, response.json);
    addBodyRules({
      schema: schema && jsonSchemaOf(schema),
      value: response.json,
      path: '$',
      rules: responseBodyRules,
      ...(exchange.fixedJobState ? { fixed: new Set(['$.status', '$.evaluation']) } : {}),
    });
  }
  const jsonAnswer = response.body !== undefined && isJsonType(exchange.responseContentType);
  const responseRules: PactMatchingRules = {
    ...(nonEmpty(responseBodyRules) ? { body: responseBodyRules } : {}),
    ...(jsonAnswer ? { header: { 'Content-Type': jsonContentTypeRule } } : {}),
  };
  const requestHeaders = Object.fromEntries(Object.entries(exchange.requestHeaders).map(([name, value]) => [name, [value]]));
  return {
    type: 'Synchronous/HTTP',
    key: interactionKey(exchange.key),
    description: describe(exchange),
    pending: false,
    ...(exchange.state ? { providerStates: [{ name: exchange.state.name, params: exchange.state.params }] } : {}),
    request: {
      method: exchange.method,
      path: exchange.path,
      ...(nonEmpty(requestHeaders) ? { headers: requestHeaders } : {}),
      ...(request.body ? { body: request.body } : {}),
      ...(nonEmpty(requestRules) ? { matchingRules: requestRules } : {}),
      ...(exchange.pathExpression
        ? { generators: { path: { type: 'ProviderState' as const, expression: exchange.pathExpression, dataType: 'STRING' as const } } }
        : {}),
    },
    response: {
      status: exchange.status,
      ...(jsonAnswer ? { headers: { 'Content-Type': ['application/json'] } } : {}),
      ...(response.body ? { body: response.body } : {}),
      ...(nonEmpty(responseRules) ? { matchingRules: responseRules } : {}),
    },
  };
}

/** The pact of what `exchanges` show, scrubbed of every credential `scrubber` knows. */
export function writePactDocument(options: {
  readonly exchanges: readonly RecordedExchange[];
  readonly leftOut: number;
  readonly parties: PactParties;
  readonly contract: EngineContract;
  readonly scrubber: Scrubber;
}): PactV4 {
  const { exchanges, parties, contract, scrubber } = options;
  const interactions = exchanges
    .map((exchange) => interaction(exchange, contract, scrubber))
    // Sorted, so that the same traffic in another order writes the same file.
    .sort((left, right) => (left.description < right.description ? -1 : left.description > right.description ? 1 : 0));
  const pact: PactV4 = {
    consumer: { name: parties.consumer },
    provider: { name: parties.provider },
    interactions,
    metadata: {
      pactSpecification: { version: '4.0' },
      'evidence-harness': { contractVersion: contract.version, leftOut: options.leftOut },
    },
  };
  return scrubber.scrubDeep(pact);
}
