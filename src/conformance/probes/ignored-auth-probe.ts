/**
 * @module conformance/probes/ignored-auth-probe
 * For ignored_auth (after Schemathesis's check of the same name): the read of the job the
 * lifecycle probe created, answered 2xx with the first caller's credentials, sent again at once
 * without them. Only a caller's own job is asked for: the contract leaves authentication "not
 * shown", so a stateless operation such as verifyReport may well be open to anyone, but a
 * job answered the same to no caller at all means the credentials are ignored.
 */
import { createHash } from 'node:crypto';
import { contractOperationIds } from './contract-operations.js';
import type { ProbeContext } from './probe-context.js';
import { buildRequest, parametersIn } from './request-builder.js';

/** The SHA-256 of an answer's body: the intent keeps this, not the body. */
export function bodyDigest(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

export async function ignoredAuthProbe(context: ProbeContext, jobId: string | undefined): Promise<void> {
  if (context.credentialHeaders.length === 0) {
    context.note('no credentials given (--header): ignored_auth has nothing to leave out');
    return;
  }
  const read = context.contract.operations.find((operation) => operation.operationId === contractOperationIds.read);
  if (!read) return;
  if (!jobId) {
    context.note("ignored_auth: no job to read (the job lifecycle's create gave no usable jobId)");
    return;
  }
  const name = parametersIn(read, 'path')[0]?.name ?? 'jobId';
  const request = buildRequest({
    operation: read,
    seed: context.seed,
    runId: context.runId,
    purpose: 'ignored-auth',
    path: { [name]: jobId },
  });
  const description = `a read of job ${jobId.slice(0, 80)}, created by the first caller`;
  const withThem = await context.send(request, {
    kind: 'positive',
    source: 'example',
    description: `${description}, before the same read without credentials`,
  });
  const answer = withThem?.response;
  // Only a read the server answered with the job says anything about the read without credentials.
  if (!answer || answer.incomplete || answer.status < 200 || answer.status > 299) {
    if (!withThem) context.dependentsNotSent(1);
    else context.note(`ignored_auth: the read with credentials answered ${answer?.status ?? 'nothing'}, so there was nothing to compare`);
    return;
  }
  await context.send(
    { ...request, withoutCredentials: true },
    {
      kind: 'without-credentials',
      description,
      removed: context.credentialHeaders,
      answer: { status: answer.status, bodyDigest: bodyDigest(answer.bodyText) },
    },
  );
}
