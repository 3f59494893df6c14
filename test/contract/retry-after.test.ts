/**
 * The one Retry-After reading (src/contract/retry-after.ts), value by value: delay-seconds,
 * the three HTTP-date formats of RFC 9110 §5.6.7, and what is unreadable.
 */
import { expect, it } from 'vitest';
import { maxRetryAfterSeconds, parseRetryAfter } from '../../src/contract/retry-after.js';

// Sunday 22 November 2026, 12:00:00 UTC.
const now = Date.UTC(2026, 10, 22, 12, 0, 0);
const cap = maxRetryAfterSeconds * 1000;

it.each([
  ['digits', '3', 3000],
  ['zero', '0', 0],
  ['leading zeros', '007', 7000],
  ['spaces and tabs around', ' \t5 ', 5000],
  ['a number past the cap', '2147483649', cap],
  ['a number of 400 digits (Infinity as a double)', '9'.repeat(400), cap],
  ['IMF-fixdate', 'Sun, 22 Nov 2026 12:00:05 GMT', 5000],
  ['IMF-fixdate, names in another case', 'SUN, 22 nov 2026 12:00:05 gmt', 5000],
  ['IMF-fixdate in the past', 'Sun, 22 Nov 2026 11:59:00 GMT', 0],
  ['IMF-fixdate whose weekday does not match', 'Mon, 22 Nov 2026 12:00:05 GMT', 5000],
  ['IMF-fixdate with a leap second', 'Sun, 22 Nov 2026 12:00:60 GMT', 60_000],
  ['IMF-fixdate far ahead', 'Fri, 31 Dec 9999 23:59:59 GMT', cap],
  ['RFC 850', 'Sunday, 22-Nov-26 12:00:05 GMT', 5000],
  ['RFC 850, a year more than 50 ahead read as the past', 'Monday, 22-Nov-77 12:00:05 GMT', 0],
  ['asctime', 'Sun Nov 22 12:00:05 2026', 5000],
  ['asctime with a one-digit day', 'Wed Dec  2 12:00:00 2026', 10 * 86_400_000],
] as const)('reads %s', (_, value, expected) => {
  expect(parseRetryAfter(value, { now })).toBe(expected);
});

it.each([
  ['absent (null)', null],
  ['absent (undefined)', undefined],
  ['empty', ''],
  ['only spaces', '   '],
  ['negative', '-1'],
  ['a plus sign', '+1'],
  ['a fraction', '1.5'],
  ['an exponent', '1e3'],
  ['a space inside the number', '1 0'],
  ['non-ASCII digits', '١٢'],
  ['a word', 'soon'],
  ['an ISO date', '2026-11-22'],
  ['an ISO date-time', '2026-11-22T12:00:05Z'],
  ['IMF-fixdate with another zone', 'Sun, 22 Nov 2026 12:00:05 +0000'],
  ['IMF-fixdate with a one-digit day', 'Sun, 2 Nov 2026 12:00:05 GMT'],
  ['IMF-fixdate with a two-digit year', 'Sun, 22 Nov 26 12:00:05 GMT'],
  ['IMF-fixdate with no weekday', '22 Nov 2026 12:00:05 GMT'],
  ['IMF-fixdate with a long weekday', 'Sunday, 22 Nov 2026 12:00:05 GMT'],
  ['IMF-fixdate on a day the month lacks', 'Tue, 31 Feb 2026 12:00:05 GMT'],
  ['IMF-fixdate at hour 24', 'Sun, 22 Nov 2026 24:00:00 GMT'],
  ['IMF-fixdate with words after it', 'Sun, 22 Nov 2026 12:00:05 GMT please'],
  ['RFC 850 with a four-digit year', 'Sunday, 22-Nov-2026 12:00:05 GMT'],
  ['asctime with a zone', 'Sun Nov 22 12:00:05 GMT 2026'],
  ['a number and a date', '5, Sun, 22 Nov 2026 12:00:05 GMT'],
] as const)('finds %s unreadable', (_, value) => {
  expect(parseRetryAfter(value, { now })).toBeUndefined();
});
