/**
 * @module test/support/rule-pairs/document-pairs
 * Pairs for the rules on the whole document and on one operation (test/support/rule-agreement.ts).
 */
import type { RulePair } from '../rule-agreement.js';
import { refuseRequests } from '../rule-agreement.js';
import { report, reportPath, reportPrefix, withReportOperation } from './example-operation.js';

const fileReport = ['fileReport'];
const bearer = { bearerAuth: { type: 'http', scheme: 'bearer' } };

export const documentPairs: readonly RulePair[] = [
  { rule: 'openapi-version-changed', edit: (doc) => (doc.openapi = '3.1.1') },
  { rule: 'api-version-changed', edit: (doc) => (doc.info.version = '0.2.0') },
  { rule: 'base-path-changed', edit: (doc) => (doc.servers = [{ url: 'http://127.0.0.1:4010/api' }]) },
  { rule: 'server-changed', edit: (doc) => (doc.servers = [{ url: 'http://localhost:4010' }]) },
  {
    rule: 'security-scheme-changed',
    what: 'a scheme added, and required of every operation',
    edit: (doc) => {
      doc.components.securitySchemes = bearer;
      doc.security = [{ bearerAuth: [] }];
    },
  },
  {
    rule: 'security-changed',
    what: 'one operation now requires a scheme OLD declared',
    base: (doc) => (doc.components.securitySchemes = bearer),
    edit: (doc) => (doc.paths['/v0/evaluations'].post.security = [{ bearerAuth: [] }]),
  },
  { rule: 'operation-added', operations: fileReport, edit: withReportOperation },
  {
    rule: 'operation-removed',
    base: withReportOperation,
    edit: (doc) => delete doc.paths[reportPath],
  },
  {
    rule: 'operation-moved',
    operations: fileReport,
    base: withReportOperation,
    edit: (doc) => {
      doc.paths['/v0/filed-reports/{reportId}'] = doc.paths[reportPath];
      delete doc.paths[reportPath];
    },
  },
  {
    rule: 'component-renamed',
    edit: (doc) => {
      doc.components.schemas.EvidenceRef = doc.components.schemas.EvidenceReference;
      delete doc.components.schemas.EvidenceReference;
      doc.components.schemas.EvaluationRequest.properties.evidence.items = { $ref: '#/components/schemas/EvidenceRef' };
    },
  },
  { rule: 'component-added', edit: (doc) => (doc.components.schemas.Note = { type: 'string', maxLength: 200 }) },
  {
    rule: 'component-removed',
    base: (doc) => (doc.components.schemas.Note = { type: 'string', maxLength: 200 }),
    edit: (doc) => delete doc.components.schemas.Note,
  },
  {
    rule: 'operation-id-changed',
    operations: ['submitReport'],
    base: withReportOperation,
    edit: (doc) => (report(doc).operationId = 'submitReport'),
  },
  {
    rule: 'path-parameter-renamed',
    operations: fileReport,
    base: withReportOperation,
    edit: (doc) => {
      const operation = doc.paths[reportPath];
      operation.post.parameters[0].name = 'id';
      doc.paths['/v0/reports/{id}'] = operation;
      delete doc.paths[reportPath];
    },
  },
  {
    rule: 'required-parameter-added',
    what: 'a header, which the runner leaves out',
    operations: fileReport,
    base: withReportOperation,
    edit: (doc) =>
      report(doc).parameters.push({ name: 'X-Tenant', in: 'header', required: true, schema: { type: 'string', maxLength: 16 } }),
  },
  {
    rule: 'required-parameter-added',
    what: 'a query parameter, which the runner never varies',
    operations: fileReport,
    base: withReportOperation,
    edit: (doc) => report(doc).parameters.push({ name: 'tenant', in: 'query', required: true, schema: { type: 'string', maxLength: 16 } }),
  },
  {
    rule: 'optional-parameter-added',
    what: 'a header with a length limit',
    operations: fileReport,
    base: withReportOperation,
    edit: (doc) => report(doc).parameters.push({ name: 'X-Tenant', in: 'header', schema: { type: 'string', maxLength: 16 } }),
    // The engine checks only required headers of an operation it serves from examples.
    newServer: refuseRequests(reportPrefix, (request) =>
      (request.headers.get('x-tenant')?.length ?? 0) > 16 ? 'X-Tenant header: at most 16 characters' : undefined,
    ),
  },
  {
    rule: 'optional-parameter-added',
    what: 'a header with no constraint',
    operations: fileReport,
    base: withReportOperation,
    edit: (doc) => report(doc).parameters.push({ name: 'X-Tenant', in: 'header', schema: { type: 'string' } }),
  },
  {
    rule: 'parameter-removed',
    what: 'an optional query parameter',
    operations: fileReport,
    base: (doc) => {
      withReportOperation(doc);
      report(doc).parameters.push({ name: 'tenant', in: 'query', schema: { type: 'string', maxLength: 16 } });
    },
    edit: (doc) => report(doc).parameters.pop(),
  },
  {
    rule: 'parameter-removed',
    what: 'a required header',
    operations: fileReport,
    base: (doc) => {
      withReportOperation(doc);
      report(doc).parameters.push({ name: 'X-Tenant', in: 'header', required: true, schema: { type: 'string', maxLength: 16 } });
    },
    edit: (doc) => report(doc).parameters.pop(),
  },
  { rule: 'wording-changed', edit: (doc) => (doc.paths['/v0/evaluations'].post.description = 'Creates an evaluation job.') },
  { rule: 'extension-changed', edit: (doc) => (doc.paths['/v0/evaluations'].post['x-implemented'] = true) },
  { rule: 'deprecation-changed', edit: (doc) => (doc.paths['/v0/evaluations'].post.deprecated = true) },
  {
    rule: 'unclassified-change',
    what: 'a callback added to an operation',
    edit: (doc) =>
      (doc.paths['/v0/evaluations'].post.callbacks = {
        jobDone: { '{$request.body#/callbackUrl}': { post: { responses: { '204': { description: 'Received.' } } } } },
      }),
  },
  {
    rule: 'unclassified-change',
    what: 'a link added to a response',
    operations: fileReport,
    base: withReportOperation,
    edit: (doc) =>
      (report(doc).responses['200'].links = { receipt: { operationId: 'getJob', parameters: { jobId: '$response.body#/receipt' } } }),
  },
];
