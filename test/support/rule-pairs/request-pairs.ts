/**
 * @module test/support/rule-pairs/request-pairs
 * Pairs for the rules on what a request carries: its body's schema, its parameters, its body and
 * media types (test/support/rule-agreement.ts). The contract's createEvaluation validates its body
 * from the document, so most run against it; what it answers from code (the Idempotency-Key it
 * always requires, A-16) is left to fileReport, which the engine serves from the document.
 */
import type { Doc, RulePair } from '../rule-agreement.js';
import { refuseRequests, rewriteRequests } from '../rule-agreement.js';
import { report, reportPrefix, withReportOperation } from './example-operation.js';

const request = (doc: Doc) => doc.components.schemas.EvaluationRequest;
/** The document's own example of a createEvaluation body, which the runner sends as it is. */
const example = (doc: Doc) => doc.paths['/v0/evaluations'].post.requestBody.content['application/json'].examples.paymentConformance.value;
const fileReport = ['fileReport'];
/** The engine checks only the required headers of an operation it serves from examples: an optional X-Tenant's limit, checked. */
const tenantChecked = refuseRequests(reportPrefix, (request) =>
  (request.headers.get('x-tenant')?.length ?? 0) > 16 ? 'X-Tenant header: at most 16 characters' : undefined,
);
const reportBody = (doc: Doc) => doc.components.schemas.Report;
const reportExample = (doc: Doc) => report(doc).requestBody.content['application/json'].examples.one.value;
/** fileReport whose body requires a `source` of `format`, its example `value`. */
const withSource = (format: string, value: string) => (doc: Doc) => {
  withReportOperation(doc);
  reportBody(doc).properties.source = { type: 'string', format, maxLength: 200 };
  reportBody(doc).required.push('source');
  reportExample(doc).source = value;
};
/** fileReport with an optional header X-Tenant (required: `required`). */
const withTenantHeader = (required: boolean) => (doc: Doc) => {
  withReportOperation(doc);
  report(doc).parameters.push({ name: 'X-Tenant', in: 'header', required, schema: { type: 'string', maxLength: 16 }, example: 'acme' });
};

export const requestPairs: readonly RulePair[] = [
  { rule: 'limit-tightened', edit: (doc) => (request(doc).properties.operationId.maxLength = 64) },
  { rule: 'limit-tightened', edit: (doc) => (request(doc).properties.operationId.minLength = 8) },
  { rule: 'limit-tightened', edit: (doc) => (request(doc).properties.evidence.maxItems = 32) },
  { rule: 'limit-tightened', edit: (doc) => (doc.components.parameters.IdempotencyKey.schema.maxLength = 64) },
  { rule: 'limit-loosened', edit: (doc) => (request(doc).properties.operationId.maxLength = 256) },
  { rule: 'pattern-changed', edit: (doc) => (request(doc).properties.instructionDigest.pattern = '^[0-9a-fA-F]{64}$') },
  {
    rule: 'pattern-changed',
    base: (doc) => (request(doc).properties.instructionDigest.pattern = '^[0-9a-fA-F]{64}$'),
    edit: (doc) => (request(doc).properties.instructionDigest.pattern = '^[0-9a-f]{64}$'),
  },
  {
    rule: 'pattern-added',
    base: (doc) => (request(doc).properties.priority = { type: 'string' }),
    edit: (doc) => (request(doc).properties.priority.pattern = '^[a-z]{4}$'),
  },
  { rule: 'pattern-removed', edit: (doc) => delete request(doc).properties.instructionDigest.pattern },
  {
    rule: 'enum-added',
    base: (doc) => (request(doc).properties.priority = { type: 'string' }),
    edit: (doc) => (request(doc).properties.priority.enum = ['low', 'high']),
  },
  {
    rule: 'enum-removed',
    base: (doc) => (request(doc).properties.priority = { type: 'string', enum: ['low', 'high'] }),
    edit: (doc) => delete request(doc).properties.priority.enum,
  },
  {
    rule: 'enum-value-removed',
    base: (doc) => (request(doc).properties.priority = { type: 'string', enum: ['low', 'normal', 'high'] }),
    edit: (doc) => (request(doc).properties.priority.enum = ['low', 'normal']),
  },
  {
    rule: 'enum-value-added',
    base: (doc) => (request(doc).properties.priority = { type: 'string', enum: ['low', 'normal'] }),
    edit: (doc) => (request(doc).properties.priority.enum = ['low', 'normal', 'high']),
  },
  {
    rule: 'type-changed',
    base: (doc) => (request(doc).properties.priority = { type: ['string', 'null'], maxLength: 8 }),
    edit: (doc) => (request(doc).properties.priority.type = 'string'),
  },
  {
    rule: 'type-changed',
    base: (doc) => (request(doc).properties.priority = { type: 'string', maxLength: 8 }),
    edit: (doc) => (request(doc).properties.priority.type = ['string', 'null']),
  },
  { rule: 'property-added', edit: (doc) => (request(doc).properties.priority = { type: 'string', maxLength: 8 }) },
  {
    rule: 'required-property-added',
    edit: (doc) => {
      request(doc).properties.priority = { type: 'string', maxLength: 8 };
      request(doc).required.push('priority');
      example(doc).priority = 'high';
    },
  },
  {
    rule: 'property-removed',
    base: (doc) => (request(doc).properties.priority = { type: 'string', maxLength: 8 }),
    edit: (doc) => delete request(doc).properties.priority,
  },
  {
    rule: 'property-became-required',
    edit: (doc) => {
      doc.components.schemas.EvidenceReference.required.push('digest');
      for (const item of example(doc).evidence) item.digest ??= '0'.repeat(64);
    },
  },
  {
    rule: 'property-became-optional',
    edit: (doc) => (request(doc).required = request(doc).required.filter((name: string) => name !== 'policyDigest')),
  },
  {
    rule: 'additional-properties-closed',
    base: (doc) => delete request(doc).additionalProperties,
    edit: (doc) => (request(doc).additionalProperties = false),
  },
  { rule: 'additional-properties-opened', edit: (doc) => delete request(doc).additionalProperties },
  {
    rule: 'format-added',
    base: (doc) => (request(doc).properties.note = { type: 'string', maxLength: 200 }),
    edit: (doc) => (request(doc).properties.note.format = 'uri'),
  },
  { rule: 'format-removed', edit: (doc) => delete doc.components.schemas.EvidenceReference.properties.uri.format },
  { rule: 'limit-loosened', edit: (doc) => (request(doc).properties.evidence.maxItems = 128) },
  {
    rule: 'limit-tightened',
    operations: ['getJob'],
    edit: (doc) => (doc.paths['/v0/jobs/{jobId}'].get.parameters[0].schema.maxLength = 64),
  },
  {
    rule: 'limit-loosened',
    operations: ['getJob'],
    edit: (doc) => (doc.paths['/v0/jobs/{jobId}'].get.parameters[0].schema.maxLength = 256),
  },

  {
    rule: 'format-changed',
    what: 'email to uri, which the runner sends near misses of',
    operations: fileReport,
    base: withSource('email', 'https://reports.example/q3'),
    edit: (doc) => (reportBody(doc).properties.source.format = 'uri'),
  },
  {
    rule: 'default-value-changed',
    operations: fileReport,
    base: (doc) => {
      withReportOperation(doc);
      reportBody(doc).properties.priority = { type: 'string', maxLength: 8, default: 'low' };
    },
    edit: (doc) => (reportBody(doc).properties.priority.default = 'high'),
  },
  {
    rule: 'parameter-became-required',
    what: 'a header, which the runner leaves out',
    operations: fileReport,
    base: withTenantHeader(false),
    edit: (doc) => (report(doc).parameters[1].required = true),
  },
  {
    rule: 'parameter-became-optional',
    what: 'a header',
    operations: fileReport,
    base: withTenantHeader(true),
    edit: (doc) => (report(doc).parameters[1].required = false),
    newServer: tenantChecked,
  },
  {
    rule: 'parameter-serialization-changed',
    what: "a header's explode",
    operations: fileReport,
    base: withTenantHeader(true),
    edit: (doc) => (report(doc).parameters[1].explode = true),
  },
  {
    rule: 'request-body-became-required',
    operations: fileReport,
    base: (doc) => {
      withReportOperation(doc);
      report(doc).requestBody.required = false;
    },
    edit: (doc) => (report(doc).requestBody.required = true),
  },
  {
    rule: 'request-body-became-optional',
    operations: fileReport,
    base: withReportOperation,
    edit: (doc) => (report(doc).requestBody.required = false),
  },
  {
    rule: 'request-body-added',
    operations: fileReport,
    base: (doc) => {
      withReportOperation(doc);
      delete report(doc).requestBody;
    },
    edit: (doc) => {
      withReportOperation(doc);
      report(doc).requestBody.required = false;
    },
  },
  {
    rule: 'request-body-removed',
    what: 'an optional body',
    operations: fileReport,
    base: (doc) => {
      withReportOperation(doc);
      report(doc).requestBody.required = false;
    },
    edit: (doc) => delete report(doc).requestBody,
  },
  {
    rule: 'request-media-type-added',
    what: 'a JSON media type, which the runner never sends bodies in',
    operations: fileReport,
    base: withReportOperation,
    edit: (doc) => {
      const content = report(doc).requestBody.content;
      content['application/merge-patch+json'] = structuredClone(content['application/json']);
    },
    // The engine reads application/json alone; NEW's server takes the other as the same JSON.
    newServer: rewriteRequests(reportPrefix, (request) => asJson(request)),
  },
  {
    rule: 'request-media-type-removed',
    operations: fileReport,
    base: (doc) => {
      withReportOperation(doc);
      const content = report(doc).requestBody.content;
      content['application/merge-patch+json'] = structuredClone(content['application/json']);
    },
    edit: (doc) => delete report(doc).requestBody.content['application/merge-patch+json'],
    oldServer: rewriteRequests(reportPrefix, (request) => asJson(request)),
  },
];

/** A request sent as application/merge-patch+json, as the same body in application/json. */
function asJson(request: Request): Request {
  if (!/^application\/merge-patch\+json/i.test(request.headers.get('content-type') ?? '')) return request;
  const headers = new Headers(request.headers);
  headers.set('content-type', 'application/json');
  return new Request(request, { headers });
}
