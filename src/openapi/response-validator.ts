/**
 * @module openapi/response-validator
 * Checks one HTTP response against what the OpenAPI document says the operation may answer:
 * a documented status, a documented media type, and a body valid against its schema. Used by
 * the behaviour suites on every response they receive and by the conformance runner.
 */
import type { ValidateFunction } from 'ajv';
import { essence } from '../contract/media-type.js';
import type { ContractDocument, OperationDescription, ResponseDescription } from './document.js';
import { createSchemaValidator, type SchemaProblem, toSchemaProblems } from './schema-validator.js';

export interface ObservedResponse {
  readonly status: number;
  /** The Content-Type header as received, parameters included (or null when absent). */
  readonly contentType: string | null;
  /** The body text; JSON bodies are parsed here. */
  readonly bodyText: string;
}

export type ResponseProblemKind = 'undocumented_status' | 'undocumented_content_type' | 'invalid_json' | 'schema_violation';

export interface ResponseProblem {
  readonly kind: ResponseProblemKind;
  readonly message: string;
  readonly schemaProblems?: readonly SchemaProblem[];
}

/** The documented response a status falls under: the exact code, then nXX, then default. */
export function matchResponse(operation: OperationDescription, status: number): ResponseDescription | undefined {
  const exact = operation.responses.find((response) => response.status === String(status));
  if (exact) return exact;
  const range = operation.responses.find((response) => response.status.toUpperCase() === `${String(status)[0]}XX`);
  return range ?? operation.responses.find((response) => response.status === 'default');
}

export class ResponseValidator {
  private readonly ajv: ReturnType<typeof createSchemaValidator>;
  private readonly compiled = new Map<object, ValidateFunction>();
  private readonly byId: Map<string, OperationDescription>;

  /** `allErrors` (default true): report every problem of a value, not only its first. */
  constructor(
    readonly contract: ContractDocument,
    options: { allErrors?: boolean } = {},
  ) {
    this.ajv = createSchemaValidator(options);
    this.byId = new Map(contract.operations.map((operation) => [operation.operationId, operation]));
  }

  operation(operationId: string): OperationDescription {
    const operation = this.byId.get(operationId);
    if (!operation) throw new Error(`No operation '${operationId}' in ${this.contract.source}`);
    return operation;
  }

  /** Validates a value against a schema of the document, caching the compiled validator. */
  validateSchema(schema: object, value: unknown): SchemaProblem[] {
    let validate = this.compiled.get(schema);
    if (!validate) {
      validate = this.ajv.compile(schema);
      this.compiled.set(schema, validate);
    }
    return validate(value) ? [] : toSchemaProblems(validate.errors);
  }

  /** Every way `response` departs from what `operationId` documents; empty when it conforms. */
  validate(operationId: string, response: ObservedResponse): ResponseProblem[] {
    const operation = this.operation(operationId);
    const documented = matchResponse(operation, response.status);
    if (!documented) {
      const listed = operation.responses.map((entry) => entry.status).join(', ');
      return [
        { kind: 'undocumented_status', message: `status ${response.status} is not documented for ${operationId} (documented: ${listed})` },
      ];
    }
    const mediaTypes = Object.keys(documented.content);
    if (mediaTypes.length === 0) return [];
    const received = essence(response.contentType);
    const mediaType = mediaTypes.find((candidate) => candidate.toLowerCase() === received);
    if (!mediaType) {
      return [
        {
          kind: 'undocumented_content_type',
          message: `Content-Type ${response.contentType ?? '(none)'} is not documented for ${operationId} ${documented.status} (documented: ${mediaTypes.join(', ')})`,
        },
      ];
    }
    const schema = documented.content[mediaType];
    if (!schema) return [];
    let body: unknown;
    try {
      body = JSON.parse(response.bodyText);
    } catch {
      return [{ kind: 'invalid_json', message: `the ${response.status} body is not JSON: ${response.bodyText.slice(0, 120)}` }];
    }
    const schemaProblems = this.validateSchema(schema, body);
    if (schemaProblems.length === 0) return [];
    return [
      {
        kind: 'schema_violation',
        message: `the ${response.status} body does not match the documented schema: ${schemaProblems.map((problem) => problem.message).join('; ')}`,
        schemaProblems,
      },
    ];
  }
}
