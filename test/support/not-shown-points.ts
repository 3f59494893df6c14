/**
 * A client's traffic over points the contract leaves "not shown" (A-69's acceptance): each
 * request and what a client observes of its answer (status, Error code, and the headers a
 * profile may hold), as one line per point, so a server and a mock can be compared point by
 * point. Sent in order to `base` (a server, a proxy in front of it, or a mock).
 */
import { evaluationRequest } from './fixtures.js';

/**
 * The headers a profile holds (A-3, A-7, A-16, A-20), as a client reads them. WWW-Authenticate is
 * left out: a profile holds a server's challenge, but not its lack of one (the mock's own 401
 * always carries one, RFC 9110 §15.5.2).
 */
const heldHeaders = ['allow', 'cache-control', 'retry-after', 'idempotent-replayed', 'location'];

async function line(name: string, response: Response, jobId?: string): Promise<string> {
  const text = await response.text();
  let code = '';
  let status = '';
  try {
    const body = JSON.parse(text) as { code?: string; status?: string };
    code = body.code ?? '';
    status = body.status ?? '';
  } catch {
    code = '(not JSON)';
  }
  const headers = heldHeaders
    .map((header) => [header, response.headers.get(header)] as const)
    .filter(([, value]) => value !== null)
    .map(([header, value]) => `${header}=${jobId ? value!.replaceAll(jobId, '{jobId}') : value}`);
  return `${name}: ${response.status} ${code}${status ? ` ${status}` : ''}${headers.length > 0 ? ` [${headers.join(' ')}]` : ''}`;
}

/** Each point's answer from `base`, `caller` the credential header every request but the anonymous ones carries. */
export async function notShownAnswers(base: string, options: { caller: Record<string, string> }): Promise<string[]> {
  const { caller } = options;
  const seen: string[] = [];
  const key = () => `k-${Math.random().toString(36).slice(2)}`;
  const body = JSON.stringify(evaluationRequest());
  const json = { ...caller, 'content-type': 'application/json' };
  const post = (headers: Record<string, string>, data: string) => fetch(`${base}/v0/evaluations`, { method: 'POST', headers, body: data });
  // A create, its replay and a conflict under its key, and reads of its job until it ends.
  const used = key();
  const created = await post({ ...json, 'idempotency-key': used }, body);
  const createdText = await created.clone().text();
  const jobId = (JSON.parse(createdText) as { jobId: string }).jobId;
  seen.push(await line('create', created, jobId));
  seen.push(await line('replay', await post({ ...json, 'idempotency-key': used }, body), jobId));
  seen.push(
    await line(
      'conflict',
      await post({ ...json, 'idempotency-key': used }, JSON.stringify(evaluationRequest({ operationId: 'other' }))),
      jobId,
    ),
  );
  let last = '';
  for (let read = 0; read < 6 && !/ (COMPLETE|FAILED)/.test(last); read += 1)
    last = await line('read to the end', await fetch(`${base}/v0/jobs/${jobId}`, { headers: caller }), jobId);
  seen.push(last);
  seen.push(await line('malformed JSON', await post({ ...json, 'idempotency-key': key() }, '{"profile":')));
  seen.push(await line('text/plain', await post({ ...caller, 'content-type': 'text/plain', 'idempotency-key': key() }, body)));
  seen.push(await line('no Idempotency-Key', await post(json, body)));
  seen.push(await line('empty Idempotency-Key', await post({ ...json, 'idempotency-key': '' }, body)));
  seen.push(
    await line(
      'over a maxLength',
      await post({ ...json, 'idempotency-key': key() }, JSON.stringify(evaluationRequest({ operationId: 'x'.repeat(129) }))),
    ),
  );
  seen.push(await line('unknown route', await fetch(`${base}/v1/nothing`, { headers: caller })));
  seen.push(await line('empty jobId', await fetch(`${base}/v0/jobs/`, { headers: caller })));
  seen.push(await line('unknown job', await fetch(`${base}/v0/jobs/job_unknown`, { headers: caller })));
  seen.push(await line('undeclared method', await fetch(`${base}/v0/evaluations`, { method: 'DELETE', headers: caller })));
  seen.push(await line('create without credentials', await post({ 'content-type': 'application/json', 'idempotency-key': key() }, body)));
  seen.push(await line('read without credentials', await fetch(`${base}/v0/jobs/${jobId}`), jobId));
  return seen;
}
