/**
 * @module engine/control-error
 * What the control surface refuses, and the page sizes of its listings: shared by the engine's
 * control surface and by the store-backed journal of replicas (src/server/redis).
 */
import { quote } from './responses.js';

const mebibyte = 1024 * 1024;

/** Page sizes of the control surface's listings. */
export const pageLimits = { default: 100, max: 1000, maxBytes: mebibyte } as const;

/** Thrown by the control surface for a request it cannot carry out; `message` says why. */
export class ControlError extends Error {
  override readonly name = 'ControlError';
  constructor(
    message: string,
    readonly kind: 'not_found' | 'invalid',
  ) {
    super(message);
  }
}

/** A page size as asked (default 100), refused past 1000. */
export function pageLimit(limit: number | undefined): number {
  if (limit === undefined) return pageLimits.default;
  if (!(Number.isInteger(limit) && limit >= 1 && limit <= pageLimits.max)) {
    throw new ControlError(`limit must be a whole number from 1 to ${pageLimits.max}, got ${quote(String(limit), 20)}`, 'invalid');
  }
  return limit;
}
