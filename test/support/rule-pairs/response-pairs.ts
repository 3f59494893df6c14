/**
 * @module test/support/rule-pairs/response-pairs
 * Pairs for the rules on what a server answers: statuses, media types, headers and the schemas of
 * response bodies (test/support/rule-agreement.ts). fileReport answers the example its document
 * gives, so a body's schema and example are edited together and the engine built from each side
 * answers as that side says; what the engine answers from code (headers, media types, the
 * contract's statuses) is reshaped to what each side's document says.
 */
import type { Doc, RulePair } from '../rule-agreement.js';
import { reshapeAnswers, withHeaders, withStatus } from '../rule-agreement.js';
import { receipt, receiptMedia, report, reportPrefix, withReportOperation } from './example-operation.js';

const fileReport = ['fileReport'];
/** The example fileReport answers 200 with. */
const answered = (doc: Doc) => receiptMedia(doc).examples.filed.value;
/** fileReport's 200 answer carries `name` (documented required or not by the pair). */
const sendsHeader = (name: string) =>
  reshapeAnswers(reportPrefix, (response) =>
    response.status === 200 ? withHeaders(response, (headers) => headers.set(name, 'r-1')) : response,
  );
const documentHeader = (required: boolean) => (doc: Doc) => {
  withReportOperation(doc);
  report(doc).responses['200'].headers = { 'X-Report-Id': { required, schema: { type: 'string' } } };
};
const health = ['health'];
const healthJson = (doc: Doc) => doc.paths['/health'].get.responses['200'].content;
/** health answered as application/health+json, the same body. */
const healthPlusJson = reshapeAnswers('/health', (response) =>
  withHeaders(response, (headers) => headers.set('content-type', 'application/health+json')),
);

export const responsePairs: readonly RulePair[] = [
  {
    rule: 'response-status-added',
    edit: (doc) =>
      (doc.paths['/v0/evaluations'].post.responses['429'] = structuredClone(doc.paths['/v0/evaluations'].post.responses['409'])),
  },
  {
    rule: 'response-status-removed',
    what: 'the success status OLD answers',
    operations: fileReport,
    base: (doc) => {
      withReportOperation(doc);
      report(doc).responses['201'] = structuredClone(report(doc).responses['200']);
    },
    edit: (doc) => delete report(doc).responses['200'],
  },
  {
    rule: 'response-status-removed',
    what: '413, which the runner provokes with a body past the limit',
    edit: (doc) => delete doc.paths['/v0/evaluations'].post.responses['413'],
    // NEW leaves an oversized body to 400.
    newServer: reshapeAnswers('/v0/evaluations', (response) => (response.status === 413 ? withStatus(response, 400) : response)),
  },
  {
    rule: 'response-default-added',
    base: (doc) => delete doc.paths['/v0/evaluations'].post.responses.default,
    edit: (doc) => (doc.paths['/v0/evaluations'].post.responses.default = { $ref: '#/components/responses/ProcessingFailure' }),
  },
  {
    rule: 'response-default-removed',
    what: 'OLD answered 415 under it',
    operations: fileReport,
    base: (doc) => {
      withReportOperation(doc);
      delete report(doc).responses['415'];
      report(doc).responses.default = { $ref: '#/components/responses/ProcessingFailure' };
    },
    edit: (doc) => delete report(doc).responses.default,
    // NEW documents no 415: its server refuses a body that is not JSON with 400.
    newServer: reshapeAnswers(reportPrefix, (response) => (response.status === 415 ? withStatus(response, 400) : response)),
  },
  {
    rule: 'response-media-type-added',
    operations: health,
    edit: (doc) => (healthJson(doc)['application/health+json'] = structuredClone(healthJson(doc)['application/json'])),
  },
  {
    rule: 'response-media-type-removed',
    what: 'the one OLD answers in',
    operations: health,
    base: (doc) => (healthJson(doc)['application/health+json'] = structuredClone(healthJson(doc)['application/json'])),
    edit: (doc) => delete healthJson(doc)['application/health+json'],
    oldServer: healthPlusJson,
  },
  {
    rule: 'response-header-added',
    what: 'required',
    operations: fileReport,
    base: withReportOperation,
    edit: documentHeader(true),
    newServer: sendsHeader('X-Report-Id'),
  },
  { rule: 'response-header-added', what: 'optional', operations: fileReport, base: withReportOperation, edit: documentHeader(false) },
  {
    rule: 'response-header-removed',
    what: 'required',
    operations: fileReport,
    base: documentHeader(true),
    edit: (doc) => delete report(doc).responses['200'].headers,
    oldServer: sendsHeader('X-Report-Id'),
  },
  {
    rule: 'response-header-became-required',
    operations: fileReport,
    base: documentHeader(false),
    edit: (doc) => (report(doc).responses['200'].headers['X-Report-Id'].required = true),
    newServer: sendsHeader('X-Report-Id'),
  },
  {
    rule: 'response-header-became-optional',
    operations: fileReport,
    base: documentHeader(true),
    edit: (doc) => (report(doc).responses['200'].headers['X-Report-Id'].required = false),
    oldServer: sendsHeader('X-Report-Id'),
    newServer: sendsHeader('X-Report-Id'),
  },
  // Response bodies: OLD's server answers OLD's example, which NEW's schema judges.
  {
    rule: 'property-became-required',
    what: 'in a response, which OLD left out',
    operations: fileReport,
    base: (doc) => {
      withReportOperation(doc);
      receipt(doc).properties.note = { type: 'string', maxLength: 64 };
    },
    edit: (doc) => {
      receipt(doc).required.push('note');
      answered(doc).note = 'filed on time';
    },
  },
  {
    rule: 'enum-value-added',
    what: 'in a response',
    operations: fileReport,
    base: withReportOperation,
    edit: (doc) => receipt(doc).properties.state.enum.push('LATE'),
  },
  {
    rule: 'enum-value-removed',
    what: 'in a response, the value OLD answers',
    operations: fileReport,
    base: withReportOperation,
    edit: (doc) => {
      receipt(doc).properties.state.enum = ['HELD'];
      answered(doc).state = 'HELD';
    },
  },
  {
    rule: 'composition-branch-added',
    what: 'a oneOf alternative in a response',
    operations: fileReport,
    base: (doc) => {
      withReportOperation(doc);
      receipt(doc).properties.state = { oneOf: [{ const: 'FILED' }, { const: 'HELD' }] };
    },
    edit: (doc) => receipt(doc).properties.state.oneOf.push({ const: 'LATE' }),
  },
  {
    rule: 'composition-branch-removed',
    what: 'the oneOf alternative OLD answers',
    operations: fileReport,
    base: (doc) => {
      withReportOperation(doc);
      receipt(doc).properties.state = { oneOf: [{ const: 'FILED' }, { const: 'HELD' }] };
    },
    edit: (doc) => {
      receipt(doc).properties.state.oneOf.shift();
      answered(doc).state = 'HELD';
    },
  },
  {
    rule: 'composition-changed',
    what: 'an enum became anyOf, without the value OLD answers',
    operations: fileReport,
    base: withReportOperation,
    edit: (doc) => {
      receipt(doc).properties.state = { anyOf: [{ const: 'HELD' }, { const: 'LATE' }] };
      answered(doc).state = 'HELD';
    },
  },
  {
    rule: 'schema-keyword-changed',
    what: "multipleOf, which OLD's answer breaks",
    operations: fileReport,
    base: (doc) => {
      withReportOperation(doc);
      receipt(doc).properties.copies = { type: 'integer', minimum: 1 };
      answered(doc).copies = 3;
    },
    edit: (doc) => {
      receipt(doc).properties.copies.multipleOf = 2;
      answered(doc).copies = 4;
    },
  },
];
