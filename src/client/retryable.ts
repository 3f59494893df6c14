/**
 * @module client/retryable
 * The answers worth sending a request again after: rate limited or briefly unavailable
 * (docs/assumptions.md ). One list for the create's retries and the job's polls.
 */
export const retryableStatuses: readonly number[] = [429, 502, 503, 504];
