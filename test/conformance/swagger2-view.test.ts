/**
 * The Swagger 2.0 view that `npm run dredd` gives Dredd is generated from the spec: it is a
 * valid Swagger 2.0 document, it keeps the constraints Swagger 2 can state, and it says what it
 * drops (the `default` responses).
 */
import SwaggerParser from '@apidevtools/swagger-parser';
import { expect, it } from 'vitest';
import { swagger2View } from '../../src/conformance/dredd/swagger2-view.js';
import { loadContract } from '../../src/openapi/document.js';

it('is a valid Swagger 2.0 document that keeps the spec’s constraints and examples', async () => {
  const contract = await loadContract();
  const view = swagger2View(contract, { host: '127.0.0.1:4010' });
  const validated = (await SwaggerParser.validate(structuredClone(view.document) as never)) as any;
  expect(validated.swagger).toBe('2.0');
  const create = validated.paths['/v0/evaluations'].post;
  expect(Object.keys(create.responses)).toEqual(['202', '400', '409', '413']);
  const key = create.parameters.find((parameter: any) => parameter.name === 'Idempotency-Key');
  expect(key).toMatchObject({ in: 'header', required: true, type: 'string', minLength: 1, maxLength: 128 });
  const body = create.parameters.find((parameter: any) => parameter.in === 'body').schema;
  expect(body.additionalProperties).toBe(false);
  expect(body.properties.operationId).toMatchObject({ minLength: 1, maxLength: 128 });
  expect(body.properties.evidence).toMatchObject({ minItems: 1, maxItems: 64 });
  expect(body.example.profile).toBe('svc.payment-conformance/0.1-draft');
  const job = validated.paths['/v0/jobs/{jobId}'].get.responses['200'].schema;
  expect(job.properties.status.enum).toEqual(['QUEUED', 'RUNNING', 'COMPLETE', 'FAILED']);
  expect(view.dropped).toEqual([
    'POST /v0/evaluations: the default response (no status for Dredd to expect)',
    'POST /v0/verifications: the default response (no status for Dredd to expect)',
    'GET /v0/jobs/{jobId}: the default response (no status for Dredd to expect)',
  ]);
});
