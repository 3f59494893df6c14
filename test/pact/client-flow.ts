/**
 * The consumer the pact tests record: a client that creates a job, polls it until it is final,
 * replays its create, reuses its key with another body (409), sends a text body (415) and a
 * value over a limit (413), reads a job that does not exist (404) and verifies an artifact,
 * with a credential on every call, so the tests can check none reaches the pact.
 */
import { evaluationRequest } from '../support/fixtures.js';

export const clientSecret = 'Bearer pact-test-secret-0123456789';

export async function runClientFlow(options: { baseUrl: string; fetch?: typeof fetch; key?: string }): Promise<{ jobId: string }> {
  const send = options.fetch ?? fetch;
  const key = options.key ?? 'pact-flow-key-1';
  const headers = { 'content-type': 'application/json', authorization: clientSecret, 'idempotency-key': key };
  const body = JSON.stringify(evaluationRequest());
  const created = await send(`${options.baseUrl}/v0/evaluations`, { method: 'POST', headers, body });
  if (created.status !== 202) throw new Error(`create answered ${created.status}`);
  const { jobId } = (await created.json()) as { jobId: string };
  for (let poll = 0; poll < 20; poll += 1) {
    const read = await send(`${options.baseUrl}/v0/jobs/${encodeURIComponent(jobId)}`, { headers: { authorization: clientSecret } });
    const job = (await read.json()) as { status: string };
    if (job.status === 'COMPLETE' || job.status === 'FAILED') break;
  }
  await (await send(`${options.baseUrl}/v0/evaluations`, { method: 'POST', headers, body })).text();
  const conflicting = JSON.stringify(evaluationRequest({ operationId: 'op-2026-0002' }));
  const conflict = await send(`${options.baseUrl}/v0/evaluations`, { method: 'POST', headers, body: conflicting });
  if (conflict.status !== 409) throw new Error(`conflicting create answered ${conflict.status}`);
  await conflict.text();
  const missing = await send(`${options.baseUrl}/v0/jobs/no-such-job`, { headers: { authorization: clientSecret } });
  if (missing.status !== 404) throw new Error(`unknown job answered ${missing.status}`);
  await missing.text();
  const notJson = await send(`${options.baseUrl}/v0/evaluations`, {
    method: 'POST',
    headers: { 'content-type': 'text/plain', 'idempotency-key': 'pact-flow-text' },
    body: 'evaluate this, please',
  });
  if (notJson.status !== 415) throw new Error(`a create with a text body answered ${notJson.status}`);
  await notJson.text();
  const tooLong = await send(`${options.baseUrl}/v0/evaluations`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'idempotency-key': 'pact-flow-long' },
    body: JSON.stringify(evaluationRequest({ operationId: 'o'.repeat(129) })),
  });
  if (tooLong.status !== 413) throw new Error(`a create over a limit answered ${tooLong.status}`);
  await tooLong.text();
  const verification = await send(`${options.baseUrl}/v0/verifications`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: clientSecret },
    body: JSON.stringify({ artifact: 'not-an-artifact', expectedOperationId: 'op-2026-0001', expectedIssuer: 'issuer.example' }),
  });
  if (verification.status !== 200) throw new Error(`verifyReport answered ${verification.status}`);
  await verification.text();
  await (await send(`${options.baseUrl}/health`)).text();
  return { jobId };
}
