/**
 * @module client/retry-after
 * Reads a Retry-After header (RFC 9110 §10.2.3): delay-seconds or an HTTP-date.
 */

/**
 * The wait the header asks for, in milliseconds, or undefined when it is absent or unreadable.
 * `now` is the time an HTTP-date is measured from (milliseconds since the epoch).
 */
export function parseRetryAfter(value: string | null | undefined, options: { now: number }): number | undefined {
  if (value === null || value === undefined) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  // Date.parse also accepts loose formats, so require the shape of an HTTP-date's weekday first.
  if (!/^[A-Za-z]{3},/.test(trimmed)) return undefined;
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - options.now);
}
