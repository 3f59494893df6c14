/**
 * @module engine/engine-contract
 * The contract as the engine serves it: routes, the request validators of each operation the
 * engine has behaviour for, body limits, and the operations it can only answer from the
 * document's examples. The bundled contract is the hand-written zod schemas (proven equal to
 * spec/openapi.yaml by the drift tests); `contractFromDocument` builds the same shape from any
 * OpenAPI 3.1 document, with its schemas converted by contract/schema-to-zod (same parts, same
 * messages). Isomorphic: a browser hands the document in as an object.
 */
import type * as z from 'zod';
import { cyclePointer, objectShapeProblem } from '../contract/document-budget.js';
import {
  bodyLimits,
  EvaluationRequest,
  evaluations,
  IdempotencyKey,
  Job,
  JobIdParameter,
  jobStatuses,
  VerificationRequest,
} from '../contract/index.js';
import { compilePathTemplate, type PathTemplate } from '../contract/path-template.js';
import { type PatternMatcher, zodFromJsonSchema } from '../contract/schema-to-zod.js';
import { bodyDigest } from './body-digest.js';
import { canonicalJson } from './canonical-json.js';
import { resolveLocalRefs } from './local-refs.js';
import { PatternBook } from './patterns.js';

/** The operations the engine has behaviour for; any other is answered from the document's examples. */
export const behaviourOperations = ['health', 'createEvaluation', 'verifyReport', 'getJob'] as const;
export type BehaviourOperationId = (typeof behaviourOperations)[number];

export interface ContractRoute {
  readonly operationId: string;
  readonly method: string;
  readonly path: PathTemplate;
}

/** An operation served from its document's examples: its request is validated, its answer is an example. */
export interface ExampleOperation {
  readonly operationId: string;
  readonly body?: { readonly schema: z.ZodType; readonly required: boolean };
  /** Required headers and path parameters, by name (headers lower-cased). */
  readonly headers: Readonly<Record<string, z.ZodType>>;
  readonly pathParameters: Readonly<Record<string, z.ZodType>>;
  /** Documented statuses with a JSON example, success first. */
  readonly answers: readonly { readonly status: number; readonly example: unknown }[];
}

export interface EngineContract {
  /** info.version of the document, or the bundled one's. */
  readonly version: string;
  /**
   * Tells contracts apart: `bundled VERSION`, or the version and a digest of the document.
   * Replicas sharing one store must serve the same one (server/redis/shared-state).
   */
  readonly fingerprint: string;
  readonly routes: readonly ContractRoute[];
  readonly createEvaluation: { readonly body: z.ZodType; readonly idempotencyKey: z.ZodType; readonly maxBodyBytes: number };
  readonly verifyReport: { readonly body: z.ZodType; readonly maxBodyBytes: number };
  readonly getJob: { readonly jobId: z.ZodType };
  /** A job as getJob answers it: what the control surface's setJobState must give. */
  readonly job: z.ZodType;
  /** Job states and evaluations the document allows; timelines and the control surface may use them. */
  readonly jobStatuses: readonly string[];
  readonly evaluations: readonly string[];
  readonly exampleOperations: ReadonlyMap<string, ExampleOperation>;
  /** Operations with behaviour that the document lacks: not served, and said at start. */
  readonly missing: readonly BehaviourOperationId[];
  /**
   * Settles once the document's patterns are compiled (engine/patterns): the engine awaits it
   * before its first answer. Rejects with an UnsupportedSchemaError for a pattern RE2 refuses.
   * Absent when there is nothing to wait for.
   */
  readonly ready?: Promise<void>;
}

/** A document the engine cannot serve, with the reason. */
export class ContractDocumentError extends Error {
  override readonly name = 'ContractDocumentError';
}

const bundledPaths: Record<BehaviourOperationId, { method: string; path: string }> = {
  health: { method: 'GET', path: '/health' },
  createEvaluation: { method: 'POST', path: '/v0/evaluations' },
  verifyReport: { method: 'POST', path: '/v0/verifications' },
  getJob: { method: 'GET', path: '/v0/jobs/{jobId}' },
};

export const bundledEngineContract: EngineContract = {
  version: '0.1.0-draft',
  fingerprint: 'bundled 0.1.0-draft',
  routes: behaviourOperations.map((operationId) => ({
    operationId,
    method: bundledPaths[operationId].method,
    path: compilePathTemplate(bundledPaths[operationId].path),
  })),
  createEvaluation: { body: EvaluationRequest, idempotencyKey: IdempotencyKey, maxBodyBytes: bodyLimits.createEvaluationBytes },
  verifyReport: { body: VerificationRequest, maxBodyBytes: bodyLimits.verifyReportBytes },
  getJob: { jobId: JobIdParameter },
  job: Job,
  jobStatuses,
  evaluations,
  exampleOperations: new Map(),
  missing: [],
};

type Json = Record<string, any>;
const methods = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch'] as const;

function jsonSchemaOf(content: unknown): Json | undefined {
  if (!content || typeof content !== 'object') return undefined;
  for (const [type, media] of Object.entries(content as Json)) {
    if (/^application\/(?:[\w.+-]+\+)?json$/i.test(type)) return (media as Json)?.schema ?? {};
  }
  return undefined;
}

function exampleOf(media: Json | undefined): unknown {
  if (!media) return undefined;
  if (media.example !== undefined) return media.example;
  const first = Object.values((media.examples ?? {}) as Json)[0] as Json | undefined;
  return first?.value;
}

function enumAt(schema: Json | undefined, property: string, fallback: readonly string[]): readonly string[] {
  const values = schema?.properties?.[property]?.enum;
  return Array.isArray(values) && values.every((value) => typeof value === 'string') ? values : fallback;
}

/**
 * The body limit an operation states with `x-max-body-bytes`, or the bundled default. A
 * document may lower the mock's limit or raise it up to `bodyLimits.maxDocumentBodyBytes`, never
 * past it: the mock holds a body whole while it reads it, and the document is not the operator.
 */
function maxBodyBytesOf(operation: Json, fallback: number): number {
  const onBody = operation.requestBody?.['x-max-body-bytes'];
  const stated = onBody ?? operation['x-max-body-bytes'];
  if (stated === undefined) return fallback;
  const where = `${operation.operationId}${onBody === undefined ? '' : '/requestBody'}/x-max-body-bytes`;
  if (!Number.isSafeInteger(stated) || stated <= 0) throw new ContractDocumentError(`${where} must be a positive whole number`);
  if (stated > bodyLimits.maxDocumentBodyBytes)
    throw new ContractDocumentError(
      `${where} is ${stated}; a document may set at most ${bodyLimits.maxDocumentBodyBytes} bytes (16 MiB, the largest body the mock reads)`,
    );
  return stated;
}

/** Refuses an example that contains itself (its `$ref`s lead back to it): no answer could be written from it. */
function refuseCyclicExamples(operation: Json, answers: ExampleOperation['answers']): void {
  for (const answer of answers) {
    const cycle = cyclePointer(answer.example);
    if (cycle !== undefined)
      throw new ContractDocumentError(
        `${operation.operationId}: the example of response ${answer.status} contains itself at ${cycle || '/'} (its $refs form a cycle); an example must be plain JSON`,
      );
  }
}

function parameterSchemas(operation: Json, where: 'header' | 'path', pattern: PatternMatcher): Record<string, z.ZodType> {
  const result: Record<string, z.ZodType> = {};
  for (const parameter of (operation.parameters ?? []) as Json[]) {
    if (parameter?.in !== where || (where === 'header' && !parameter.required)) continue;
    const name = where === 'header' ? String(parameter.name).toLowerCase() : String(parameter.name);
    result[name] = zodFromJsonSchema(parameter.schema ?? {}, { pointer: `${operation.operationId}/parameters/${name}`, pattern });
  }
  return result;
}

function exampleOperation(operation: Json, pattern: PatternMatcher): ExampleOperation {
  const bodySchema = jsonSchemaOf(operation.requestBody?.content);
  const answers = Object.entries((operation.responses ?? {}) as Json)
    .filter(([status]) => /^[1-5]\d\d$/.test(status))
    .map(([status, response]) => {
      const media = Object.entries(((response as Json)?.content ?? {}) as Json).find(([type]) => /json/i.test(type))?.[1] as
        | Json
        | undefined;
      return { status: Number(status), example: exampleOf(media) };
    })
    .sort((left, right) => Number(left.status >= 400) - Number(right.status >= 400) || left.status - right.status);
  refuseCyclicExamples(operation, answers);
  return {
    operationId: operation.operationId,
    ...(bodySchema === undefined
      ? {}
      : {
          body: {
            schema: zodFromJsonSchema(bodySchema, { pointer: `${operation.operationId}/requestBody`, pattern }),
            required: !!operation.requestBody?.required,
          },
        }),
    headers: parameterSchemas(operation, 'header', pattern),
    pathParameters: parameterSchemas(operation, 'path', pattern),
    answers,
  };
}

/**
 * The engine's contract from an OpenAPI 3.1 document (a parsed object; local `$ref`s are
 * resolved here, other documents' must be bundled first, as `loadContract` does in Node).
 * Throws ContractDocumentError or UnsupportedSchemaError naming what it cannot serve.
 */
export function contractFromDocument(input: unknown): EngineContract {
  if (!input || typeof input !== 'object') throw new ContractDocumentError('the document is not an object');
  // A library caller's object is held to the loader's budgets too: resolving its $refs recurses.
  const shape = objectShapeProblem(input);
  if (shape) throw new ContractDocumentError(`refused: ${shape.problem} (at ${shape.pointer || '/'})`);
  const document = resolveLocalRefs(input) as Json;
  if (typeof document.openapi !== 'string' || !document.openapi.startsWith('3.1')) {
    throw new ContractDocumentError(`expected an OpenAPI 3.1 document, found ${String(document.openapi ?? document.swagger)}`);
  }
  const routes: ContractRoute[] = [];
  const operations = new Map<string, Json>();
  for (const [path, item] of Object.entries((document.paths ?? {}) as Json)) {
    for (const method of methods) {
      const operation = (item as Json)?.[method] as Json | undefined;
      if (!operation) continue;
      if (typeof operation.operationId !== 'string') throw new ContractDocumentError(`${method.toUpperCase()} ${path} has no operationId`);
      operations.set(operation.operationId, operation);
      routes.push({ operationId: operation.operationId, method: method.toUpperCase(), path: compilePathTemplate(path) });
    }
  }
  const create = operations.get('createEvaluation');
  const verify = operations.get('verifyReport');
  const read = operations.get('getJob');
  const keyParameter = ((create?.parameters ?? []) as Json[]).find((parameter) => /^idempotency-key$/i.test(parameter?.name));
  const jobIdParameter = ((read?.parameters ?? []) as Json[]).find((parameter) => parameter?.in === 'path');
  const jobSchema = jsonSchemaOf(read?.responses?.['200']?.content) as Json | undefined;
  const exampleOperations = new Map<string, ExampleOperation>();
  const patterns = new PatternBook();
  const pattern = patterns.tester;
  for (const [operationId, operation] of operations) {
    if (!(behaviourOperations as readonly string[]).includes(operationId))
      exampleOperations.set(operationId, exampleOperation(operation, pattern));
  }
  const createBody = jsonSchemaOf(create?.requestBody?.content);
  const verifyBody = jsonSchemaOf(verify?.requestBody?.content);
  const version = String(document.info?.version ?? 'unknown');
  return {
    version,
    fingerprint: `${version} ${documentDigest(input)}`,
    routes,
    createEvaluation: {
      body: createBody ? zodFromJsonSchema(createBody, { pointer: 'createEvaluation/requestBody', pattern }) : EvaluationRequest,
      idempotencyKey: keyParameter?.schema
        ? zodFromJsonSchema(keyParameter.schema, { pointer: 'createEvaluation/parameters/Idempotency-Key', pattern })
        : IdempotencyKey,
      maxBodyBytes: create ? maxBodyBytesOf(create, bodyLimits.createEvaluationBytes) : bodyLimits.createEvaluationBytes,
    },
    verifyReport: {
      body: verifyBody ? zodFromJsonSchema(verifyBody, { pointer: 'verifyReport/requestBody', pattern }) : VerificationRequest,
      maxBodyBytes: verify ? maxBodyBytesOf(verify, bodyLimits.verifyReportBytes) : bodyLimits.verifyReportBytes,
    },
    getJob: {
      jobId: jobIdParameter?.schema
        ? zodFromJsonSchema(jobIdParameter.schema, { pointer: 'getJob/parameters/jobId', pattern })
        : JobIdParameter,
    },
    job: jobSchema ? zodFromJsonSchema(jobSchema, { pointer: 'getJob/responses/200', pattern }) : Job,
    jobStatuses: enumAt(jobSchema, 'status', jobStatuses),
    evaluations: enumAt(jobSchema, 'evaluation', evaluations),
    exampleOperations,
    missing: behaviourOperations.filter((operationId) => !operations.has(operationId)),
    ready: settledQuietly(patterns.ready()),
  };
}

/** A digest of the document as given, or 'unhashable' for one canonical JSON cannot write (a cycle). */
function documentDigest(input: unknown): string {
  try {
    return bodyDigest(new TextEncoder().encode(canonicalJson(input)));
  } catch {
    return 'unhashable';
  }
}

/** The promise, with its rejection marked handled: the engine awaits it, and nobody else need. */
function settledQuietly(promise: Promise<void>): Promise<void> {
  promise.catch(() => undefined);
  return promise;
}

/**
 * `contractFromDocument`, ready to serve: its patterns compiled. A pattern RE2 refuses
 * rejects here, at start, instead of in the answer to a request.
 */
export async function buildEngineContract(input: unknown): Promise<EngineContract> {
  const contract = isEngineContract(input) ? input : contractFromDocument(input);
  await contract.ready;
  return contract;
}

/** The contract an engine serves: the bundled one, a built one, or one built from a document. */
export function contractOption(spec: unknown): EngineContract {
  if (spec === undefined) return bundledEngineContract;
  if (isEngineContract(spec)) return spec;
  return contractFromDocument(spec);
}

export function isEngineContract(value: unknown): value is EngineContract {
  return typeof value === 'object' && value !== null && 'routes' in value && 'exampleOperations' in value;
}
