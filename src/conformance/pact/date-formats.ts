/**
 * @module conformance/pact/date-formats
 * The date and time patterns of Pact's `date`, `time` and `timestamp` matchers and its Date, Time
 * and DateTime generators: Java DateTimeFormatter letters (yyyy-MM-dd'T'HH:mm:ss.SSSXXX), as
 * pact-jvm and pact-reference read them. A pattern is compiled once, when the pact is read, into a
 * checker built by this module from a fixed set of pieces (so no pattern from the file ever
 * becomes a RegExp), and a letter it does not know is refused then, not guessed at.
 */

interface Piece {
  /** The regular expression of the field, built here (digits, fixed words, offsets). */
  readonly source: string;
  /** Checks the matched text's value where a regex alone cannot (month 1-12, hour 0-23…). */
  readonly range?: readonly [number, number];
  /** Writes the field for a generated value. */
  readonly format: (date: Date) => string;
}

const pad = (value: number, width: number) => String(value).padStart(width, '0');
const months = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const days = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

function number(letters: number, range: readonly [number, number], value: (date: Date) => number): Piece {
  return { source: letters === 1 ? '(\\d{1,2})' : `(\\d{${letters}})`, range, format: (date) => pad(value(date), letters) };
}

/** The piece of a run of one letter (`yyyy`, `MM`, `SSS`…), or undefined for a letter not supported. */
function pieceFor(letter: string, count: number): Piece | undefined {
  switch (letter) {
    case 'y':
    case 'u':
      return count === 2
        ? { source: '(\\d{2})', format: (date) => pad(date.getUTCFullYear() % 100, 2) }
        : { source: '(\\d{4,9})', format: (date) => pad(date.getUTCFullYear(), 4) };
    case 'M':
    case 'L':
      if (count >= 4) return { source: `(${months.join('|')})`, format: (date) => months[date.getUTCMonth()]! };
      if (count === 3)
        return {
          source: `(${months.map((name) => name.slice(0, 3)).join('|')})`,
          format: (date) => months[date.getUTCMonth()]!.slice(0, 3),
        };
      return number(count, [1, 12], (date) => date.getUTCMonth() + 1);
    case 'd':
      return number(count, [1, 31], (date) => date.getUTCDate());
    case 'D':
      return { source: '(\\d{1,3})', range: [1, 366], format: (date) => String(dayOfYear(date)) };
    case 'H':
      return number(count, [0, 23], (date) => date.getUTCHours());
    case 'k':
      return number(count, [1, 24], (date) => date.getUTCHours() || 24);
    case 'h':
      return number(count, [1, 12], (date) => date.getUTCHours() % 12 || 12);
    case 'K':
      return number(count, [0, 11], (date) => date.getUTCHours() % 12);
    case 'm':
      return number(count, [0, 59], (date) => date.getUTCMinutes());
    case 's':
      return number(count, [0, 60], (date) => date.getUTCSeconds());
    case 'S':
      return { source: `(\\d{${count}})`, format: (date) => pad(date.getUTCMilliseconds(), 3).padEnd(count, '0').slice(0, count) };
    case 'n':
      return { source: '(\\d{1,9})', format: (date) => String(date.getUTCMilliseconds() * 1_000_000) };
    case 'a':
      return { source: '(AM|PM|am|pm)', format: (date) => (date.getUTCHours() < 12 ? 'AM' : 'PM') };
    case 'E':
      return count >= 4
        ? { source: `(${days.join('|')})`, format: (date) => days[date.getUTCDay()]! }
        : { source: `(${days.map((name) => name.slice(0, 3)).join('|')})`, format: (date) => days[date.getUTCDay()]!.slice(0, 3) };
    case 'X':
      // ISO 8601 offsets, Z for zero: X +01, XX +0100, XXX +01:00.
      return {
        source: count === 1 ? '(Z|[+-]\\d{2}(?:\\d{2})?)' : count === 2 ? '(Z|[+-]\\d{4})' : '(Z|[+-]\\d{2}:\\d{2})',
        // Generated values are written in UTC.
        format: () => 'Z',
      };
    case 'x':
      return {
        source: count === 1 ? '([+-]\\d{2}(?:\\d{2})?)' : count === 2 ? '([+-]\\d{4})' : '([+-]\\d{2}:\\d{2})',
        format: () => (count === 3 ? '+00:00' : count === 2 ? '+0000' : '+00'),
      };
    case 'Z':
      return { source: '([+-]\\d{4}|Z)', format: () => '+0000' };
    case 'z':
    case 'V':
      return { source: '([A-Za-z][A-Za-z0-9_/+-]{0,39})', format: () => 'UTC' };
    default:
      return undefined;
  }
}

function dayOfYear(date: Date): number {
  return Math.floor((date.getTime() - Date.UTC(date.getUTCFullYear(), 0, 1)) / 86_400_000) + 1;
}

function escapeLiteral(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&');
}

export interface DateFormat {
  /** The pattern as written in the pact. */
  readonly pattern: string;
  /** Whether `text` is written in this format (each field in its range). */
  test(text: string): boolean;
  /** `date` written in this format (UTC), for the generators. */
  format(date: Date): string;
}

/** The longest pattern accepted. */
const maxPatternLength = 128;

/** Compiles a Java-style date pattern, or says which part of it is not supported. */
export function compileDateFormat(pattern: string): DateFormat | string {
  if (pattern.length === 0) return 'is empty';
  if (pattern.length > maxPatternLength) return `is longer than ${maxPatternLength} characters`;
  const pieces: (Piece | string)[] = [];
  for (let index = 0; index < pattern.length; ) {
    const char = pattern[index]!;
    if (char === "'") {
      const close = pattern.indexOf("'", index + 1);
      if (close === -1) return `has an unclosed quote at ${index}`;
      // '' is one quote.
      pieces.push(close === index + 1 ? "'" : pattern.slice(index + 1, close));
      index = close + 1;
      continue;
    }
    if (char === '[' || char === ']' || char === '#' || char === '{' || char === '}')
      return `uses '${char}' (optional sections are not supported)`;
    if (/[A-Za-z]/.test(char)) {
      let count = 1;
      while (pattern[index + count] === char) count += 1;
      const piece = pieceFor(char, count);
      if (!piece)
        return `uses the letter '${char}', which this runner does not read (supported: y u M L d D H k h K m s S n a E X x Z z V)`;
      pieces.push(piece);
      index += count;
      continue;
    }
    pieces.push(char);
    index += 1;
  }
  const source = `^${pieces.map((piece) => (typeof piece === 'string' ? escapeLiteral(piece) : piece.source)).join('')}$`;
  // Built from the fixed pieces above only: each a bounded run or a list of words, no nesting.
  const expression = new RegExp(source);
  const fields = pieces.filter((piece): piece is Piece => typeof piece !== 'string');
  return {
    pattern,
    test(text: string): boolean {
      if (text.length > 256) return false;
      const match = expression.exec(text);
      if (!match) return false;
      return fields.every((field, index) => {
        if (!field.range) return true;
        const value = Number(match[index + 1]);
        return value >= field.range[0] && value <= field.range[1];
      });
    },
    format: (date) => pieces.map((piece) => (typeof piece === 'string' ? piece : piece.format(date))).join(''),
  };
}

/** What a matcher without a format accepts (ISO 8601, as pact-reference's defaults). */
export const defaultFormats = {
  date: 'yyyy-MM-dd',
  time: 'HH:mm:ss',
  timestamp: "yyyy-MM-dd'T'HH:mm:ss",
} as const;

/**
 * An ISO 8601 date-time, for a timestamp matcher without a format: a date, 'T' or a space, a
 * time with optional fraction and an optional offset. Pact writers leave the format out for
 * "any ISO timestamp", and services send fractions and offsets freely.
 */
const isoTimestamp = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,]\d{1,9})?)?(Z|[+-]\d{2}(?::?\d{2})?)?$/;
const isoTime = /^(\d{2}):(\d{2})(?::(\d{2})(?:[.,]\d{1,9})?)?(Z|[+-]\d{2}(?::?\d{2})?)?$/;
const isoDate = /^(\d{4})-(\d{2})-(\d{2})$/;

function inRanges(values: readonly (string | undefined)[], ranges: readonly (readonly [number, number])[]): boolean {
  return ranges.every(([low, high], index) => {
    const text = values[index];
    if (text === undefined) return true;
    const value = Number(text);
    return value >= low && value <= high;
  });
}

/** The checker of a matcher without a format. */
export function defaultDateFormat(kind: 'date' | 'time' | 'timestamp'): DateFormat {
  const month: [number, number] = [1, 12];
  const day: [number, number] = [1, 31];
  const hour: [number, number] = [0, 23];
  const minute: [number, number] = [0, 59];
  const second: [number, number] = [0, 60];
  const checks = {
    date: (text: string) => {
      const match = isoDate.exec(text);
      return !!match && inRanges(match.slice(2, 4), [month, day]);
    },
    time: (text: string) => {
      const match = isoTime.exec(text);
      return !!match && inRanges(match.slice(1, 4), [hour, minute, second]);
    },
    timestamp: (text: string) => {
      const match = isoTimestamp.exec(text);
      return !!match && inRanges(match.slice(2, 7), [month, day, hour, minute, second]);
    },
  };
  const writer = compileDateFormat(kind === 'timestamp' ? "yyyy-MM-dd'T'HH:mm:ssXXX" : defaultFormats[kind]) as DateFormat;
  return { pattern: `ISO 8601 ${kind}`, test: (text) => text.length <= 64 && checks[kind](text), format: (date) => writer.format(date) };
}
