/**
 * @module test/support/rule-pairs/example-operation
 * An operation the engine has no behaviour for, `fileReport`, which the engine built from a
 * document serves from that document (src/engine/example-operations.ts): it validates the
 * request's required headers, path values and body as the document says, and answers the
 * example of its first success status. So a pair that edits it gets a server implementing each
 * side from the document itself, where the contract's four operations answer from code.
 */
import type { Doc } from '../rule-agreement.js';

export const reportPath = '/v0/reports/{reportId}';
export const reportPrefix = '/v0/reports/';

/** Adds fileReport and its schemas to `doc`. */
export function withReportOperation(doc: Doc): void {
  doc.components.schemas.Report = {
    type: 'object',
    additionalProperties: false,
    required: ['title'],
    properties: { title: { type: 'string', minLength: 1, maxLength: 64 } },
  };
  doc.components.schemas.ReportReceipt = {
    type: 'object',
    additionalProperties: false,
    required: ['receipt', 'state'],
    properties: { receipt: { type: 'string', maxLength: 16 }, state: { type: 'string', enum: ['FILED', 'HELD'] } },
  };
  doc.paths[reportPath] = {
    post: {
      operationId: 'fileReport',
      parameters: [
        // No constraint: the engine answers a path value it refuses 404, where a 400 is documented.
        { name: 'reportId', in: 'path', required: true, schema: { type: 'string' }, example: 'r-1' },
      ],
      requestBody: {
        required: true,
        content: {
          'application/json': { schema: { $ref: '#/components/schemas/Report' }, examples: { one: { value: { title: 'quarterly' } } } },
        },
      },
      responses: {
        '200': {
          description: 'Filed.',
          content: {
            'application/json': {
              schema: { $ref: '#/components/schemas/ReportReceipt' },
              examples: { filed: { value: { receipt: 'rc-1', state: 'FILED' } } },
            },
          },
        },
        '400': { $ref: '#/components/responses/InvalidRequest' },
        '415': {
          description: 'Not JSON.',
          content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
        },
        '404': {
          description: 'No such report.',
          content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
        },
      },
    },
  };
}

/** fileReport's operation object in `doc`. */
export const report = (doc: Doc) => doc.paths[reportPath].post;
/** fileReport's 200 answer's media type object in `doc`. */
export const receiptMedia = (doc: Doc) => report(doc).responses['200'].content['application/json'];
export const receipt = (doc: Doc) => doc.components.schemas.ReportReceipt;
