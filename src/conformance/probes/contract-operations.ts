/**
 * @module conformance/probes/contract-operations
 * The operations the stateful probes are about, by the contract's operationIds. Generic probes
 * need no names; the job and idempotency rules are about these operations specifically.
 */
export const contractOperationIds = { create: 'createEvaluation', read: 'getJob', verify: 'verifyReport' } as const;
