/**
 * @module contract/retry-after
 * The one reading of a Retry-After header in this project (RFC 9110 §10.2.3):
 * `Retry-After = HTTP-date / delay-seconds`, where delay-seconds is `1*DIGIT` and an HTTP-date
 * is any of the three formats a recipient must accept (RFC 9110 §5.6.7): IMF-fixdate
 * (`Sun, 06 Nov 1994 08:49:37 GMT`), the obsolete RFC 850 form (`Sunday, 06-Nov-94 08:49:37 GMT`)
 * and asctime (`Sun Nov  6 08:49:37 1994`). Anything else (a sign, a fraction, an ISO date,
 * extra words) is unreadable: what a caller does then is its own policy.
 *
 * Used by the typed client, the conformance runner's transport and the engine's consumer
 * watch. It imports nothing, not even zod, because the typed client (which may import this
 * file of the contract and no other, ARCHITECTURE.md) runs in browsers on openapi-fetch alone.
 */

/**
 * The longest wait read, in seconds: 2^31, the value RFC 9111 §1.2.2 gives a delta-seconds too
 * large to represent. A larger number or a later date reads as this, so no arithmetic on the
 * result overflows and no caller mistakes an absurd value for "unreadable".
 */
export const maxRetryAfterSeconds = 2 ** 31;

const dayNames = 'Mon|Tue|Wed|Thu|Fri|Sat|Sun';
const longDayNames = 'Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday';
const monthNames = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const month = `(${monthNames.join('|')})`;
const timeOfDay = '(\\d{2}):(\\d{2}):(\\d{2})';

// Names match without regard to case: §5.6.7 asks recipients to be robust with timestamps, and
// no other reading of such a value is possible. Everything else follows the grammar exactly.
const imfFixdate = new RegExp(`^(?:${dayNames}), (\\d{2}) ${month} (\\d{4}) ${timeOfDay} GMT$`, 'i');
const rfc850Date = new RegExp(`^(?:${longDayNames}), (\\d{2})-${month}-(\\d{2}) ${timeOfDay} GMT$`, 'i');
const asctimeDate = new RegExp(`^(?:${dayNames}) ${month} (\\d{2}| \\d) ${timeOfDay} (\\d{4})$`, 'i');

/**
 * The wait a Retry-After value asks for, in milliseconds, or undefined when it is absent or
 * unreadable. `now` (milliseconds since the epoch) is the time an HTTP-date is measured from;
 * a date in the past is no wait (0). Leading and trailing spaces and tabs are ignored, as a
 * field value's are (RFC 9110 §5.5); both forms are capped at {@link maxRetryAfterSeconds}.
 */
export function parseRetryAfter(value: string | null | undefined, options: { now: number }): number | undefined {
  if (value === null || value === undefined) return undefined;
  const text = value.replace(/^[ \t]+|[ \t]+$/g, '');
  if (/^[0-9]+$/.test(text)) return Math.min(Number(text), maxRetryAfterSeconds) * 1000;
  const date = parseHttpDate(text, options.now);
  if (date === undefined) return undefined;
  return Math.min(Math.max(0, date - options.now), maxRetryAfterSeconds * 1000);
}

/**
 * An HTTP-date (RFC 9110 §5.6.7) as milliseconds since the epoch, or undefined when `text` is
 * none of its three formats or names no real time (31 Feb, hour 24). A weekday that does not
 * match the date is not held against it: the date is what the sender meant. `now` places an
 * RFC 850 date's two-digit year.
 */
function parseHttpDate(text: string, now: number): number | undefined {
  let match = imfFixdate.exec(text);
  if (match) return utc({ year: match[3]!, month: match[2]!, day: match[1]!, time: match.slice(4, 7) });
  match = rfc850Date.exec(text);
  if (match) return utc({ year: fullYear(Number(match[3]), now), month: match[2]!, day: match[1]!, time: match.slice(4, 7) });
  match = asctimeDate.exec(text);
  if (match) return utc({ year: match[6]!, month: match[1]!, day: match[2]!.trim(), time: match.slice(3, 6) });
  return undefined;
}

/**
 * RFC 850's two-digit year: the year with those last digits that is at most 50 years ahead of
 * `now`, since §5.6.7 reads one "more than 50 years in the future" as the most recent past one.
 */
function fullYear(twoDigits: number, now: number): number {
  const current = new Date(now).getUTCFullYear();
  const year = current - (current % 100) + twoDigits;
  return year > current + 50 ? year - 100 : year;
}

function utc(parts: { year: string | number; month: string; day: string; time: string[] }): number | undefined {
  const year = Number(parts.year);
  const monthIndex = monthNames.findIndex((name) => name.toLowerCase() === parts.month.toLowerCase());
  const day = Number(parts.day);
  const [hour, minute, second] = parts.time.map(Number) as [number, number, number];
  // Second 60 is a leap second (§5.6.7 allows it); it reads as the next minute's first second.
  if (hour > 23 || minute > 59 || second > 60) return undefined;
  const date = new Date(0);
  // setUTCFullYear, not Date.UTC, which would read years 0-99 as 1900-1999.
  date.setUTCFullYear(year, monthIndex, day);
  // A day the month does not have (31 Feb) rolls into the next month: refuse it.
  if (date.getUTCMonth() !== monthIndex || date.getUTCDate() !== day) return undefined;
  date.setUTCHours(hour, minute, second, 0);
  return date.getTime();
}
