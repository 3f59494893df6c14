/**
 * @module conformance/profile/learning/credentials
 * The learning step for A-10.malformed-credentials and A-10.other-scheme (docs/profiles.md,
 * "Credentials and headers"): reads of the first caller's job (the lifecycle's, else a jobId no
 * job has) with an Authorization that is not credentials (`Bearer a b c`, `Bearer` alone) and
 * with one of another scheme than the run's. Refused, the answer is the entry (with its 401's
 * challenge); answered as to another caller (404) or at all, the credential was taken as none.
 * Only a run with credentials in Authorization asks: without --header there is no protected
 * operation to learn about, and an API key in another header has no scheme to break. Sends at
 * most 3 requests.
 */
import type { EntryName } from '../../../profile/entries.js';
import { contractOperationIds } from '../../probes/contract-operations.js';
import { buildRequest, parametersIn } from '../../probes/request-builder.js';
import type { LearningStep } from './steps.js';

/** The schemes whose name alone is no credential (RFC 6750 §2.1, RFC 7617 §2): `Bearer` alone is malformed. */
const needCredentials = new Set(['bearer', 'basic', 'dpop']);

/** The credentials the step sends: never the run's, so nothing of them is echoed anywhere. */
function sentCredentials(scheme: string | undefined): { question: string; sent: string; value: string }[] {
  const own = scheme && needCredentials.has(scheme.toLowerCase()) ? scheme : 'Bearer';
  const other = own.toLowerCase() === 'basic' ? 'Bearer ZXZpZGVuY2UtaGFybmVzcy1sZWFybmluZw' : 'Basic ZXZpZGVuY2U6aGFybmVzcw==';
  return [
    { question: 'malformed-credentials', sent: `${own} a b c`, value: `${own} a b c` },
    { question: 'malformed-credentials', sent: `${own} alone`, value: own },
    { question: 'other-scheme', sent: `${other.split(' ')[0]} credentials`, value: other },
  ];
}

/** The most requests the step sends. */
const budget = 3;

export const credentialsStep: LearningStep = {
  label: 'malformed and other-scheme credentials',
  budget,
  run: async (context, state) => {
    const header = context.credentialHeaders.find((name) => name.toLowerCase() === 'authorization');
    if (!header) {
      context.note(
        context.credentialHeaders.length === 0
          ? 'learning: the run had no credentials (--header): malformed and other-scheme credentials not asked'
          : 'learning: the run names its caller by another header than Authorization: no scheme to break, not asked',
      );
      return;
    }
    const read = context.contract.operations.find((operation) => operation.operationId === contractOperationIds.read);
    if (!read) return;
    const name = parametersIn(read, 'path')[0]?.name ?? 'jobId';
    const jobId = state.jobId ?? 'job_0000000000000000000000000';
    const request = buildRequest({
      operation: read,
      seed: context.seed,
      runId: context.runId,
      purpose: 'learning',
      path: { [name]: jobId },
    });
    for (const { question, sent, value } of sentCredentials(context.credentialSchemes?.[header])) {
      const exchange = await context.send(
        { ...request, withoutCredentials: true, headers: { ...request.headers, [header]: value } },
        { kind: 'learning', question, detail: { sent } },
      );
      if (!exchange) return;
    }
  },
};

/**
 * Why this step's entries were not learnt: the run could not ask (no credentials in
 * Authorization), or the mock could not serve what was seen (another scheme is one only against
 * a declared A-10.caller scheme: under `any` or `custom` every first word names a caller). An
 * entry the mock could not serve is taken out of `learnt`. Listed in the file under "not learnt".
 */
export function credentialsNotLearnt(
  caller: { header: string; scheme: string } | undefined,
  learnt: Record<string, unknown>,
): { entry: EntryName; reason: string }[] {
  const reason =
    caller === undefined
      ? 'the run had no credentials (one --header naming the caller): the learning step sent nothing'
      : caller.header.toLowerCase() !== 'authorization'
        ? `the run names its caller by ${caller.header}, not Authorization: no credential syntax or scheme to break, not asked`
        : undefined;
  if (reason !== undefined)
    return (['A-10.malformed-credentials', 'A-10.other-scheme'] as const)
      .filter((entry) => learnt[entry] === undefined)
      .map((entry) => ({ entry, reason }));
  const scheme = (learnt['A-10.caller'] as { scheme?: string } | undefined)?.scheme;
  if (learnt['A-10.other-scheme'] === undefined || (scheme !== undefined && scheme !== 'any' && scheme !== 'custom')) return [];
  delete learnt['A-10.other-scheme'];
  return [
    {
      entry: 'A-10.other-scheme',
      reason: `seen, but the profile names no scheme for the caller (A-10.caller ${scheme === undefined ? 'not learnt: no answer without credentials was seen' : `scheme: ${scheme}`}), so no scheme is another one to the mock`,
    },
  ];
}
