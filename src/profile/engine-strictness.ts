/**
 * @module profile/engine-strictness
 * What the mock reads of a request under format 2's strictness and order entries (A-7, A-16,
 * A-21): the members of a JSON object named twice, the charset a Content-Type declares, a
 * key outside ASCII, and the order the problems of a request are judged in. Pure functions
 * over text; the engine's judged-request.ts answers with them. Isomorphic.
 */

import { defaultProblemOrder, type ProblemName, problemNames } from './methods-vocabulary.js';
import type { ServerProfile } from './profile.js';

/** What a JSON text's objects hold twice: the first name met twice, and the text with each later member taken out. */
export interface DuplicateMembers {
  /** The first member name met twice, or undefined when no object names a member twice. */
  readonly first: string | undefined;
  /** The text with every member whose name came before in its object taken out (the first wins). */
  readonly firstWins: () => string;
}

/**
 * Scans a well-formed JSON text (JSON.parse accepted it) for objects naming a member twice.
 * A loop over a stack of open objects and arrays, never recursion: the text may be deep.
 * Names are compared decoded (`"a"` and `"\u0061"` are one name), as a JSON reader sees them.
 */
export function duplicateMembers(text: string): DuplicateMembers {
  interface Frame {
    readonly object: boolean;
    readonly names: Set<string>;
    expectName: boolean;
    /** Where the comma before the member being read is. */
    commaAt: number;
    /** Set while a repeated member is read: where its removal starts (the comma before it). */
    removeFrom: number | undefined;
  }
  const stack: Frame[] = [];
  const removals: [number, number][] = [];
  let first: string | undefined;
  for (let index = 0; index < text.length; index += 1) {
    const char = text[index];
    const top = stack[stack.length - 1];
    if (char === '{' || char === '[') {
      stack.push({ object: char === '{', names: new Set(), expectName: char === '{', commaAt: -1, removeFrom: undefined });
    } else if (char === '"') {
      const start = index;
      index += 1;
      while (index < text.length && text[index] !== '"') index += text[index] === '\\' ? 2 : 1;
      if (top?.object && top.expectName) {
        const name = JSON.parse(text.slice(start, index + 1)) as string;
        top.expectName = false;
        if (top.names.has(name)) {
          first ??= name;
          top.removeFrom = top.commaAt;
        } else top.names.add(name);
      }
    } else if (char === ',' || char === '}' || char === ']') {
      if (top?.object && top.removeFrom !== undefined) {
        removals.push([top.removeFrom, index]);
        top.removeFrom = undefined;
      }
      if (char === ',') {
        if (top?.object) {
          top.commaAt = index;
          top.expectName = true;
        }
      } else stack.pop();
    }
  }
  return {
    first,
    firstWins: () => {
      // An inner removal inside an outer one goes with it: sorted by start, a range inside the last kept is skipped.
      const sorted = removals.sort((a, b) => a[0] - b[0]);
      let kept = '';
      let from = 0;
      for (const [start, end] of sorted) {
        if (start < from) continue;
        kept += text.slice(from, start);
        from = end;
      }
      return kept + text.slice(from);
    },
  };
}

/** The charset a Content-Type's parameters declare, lower-cased, or undefined for none. */
export function declaredCharset(contentType: string | null): string | undefined {
  if (!contentType) return undefined;
  for (const parameter of contentType.split(';').slice(1)) {
    const equals = parameter.indexOf('=');
    if (equals === -1) continue;
    if (parameter.slice(0, equals).trim().toLowerCase() !== 'charset') continue;
    return parameter
      .slice(equals + 1)
      .trim()
      .replace(/^"(.*)"$/, '$1')
      .toLowerCase();
  }
  return undefined;
}

/** Whether a declared charset names UTF-8 (no charset at all is JSON's UTF-8, RFC 8259 §8.1). */
export function isUtf8Charset(charset: string | undefined): boolean {
  return charset === undefined || charset === 'utf-8' || charset === 'utf8';
}

/** Whether a header value holds a character outside printable ASCII. */
export function hasNonAscii(value: string): boolean {
  return /[^\x20-\x7e]/.test(value);
}

/**
 * The order the profile judges problems in on `operation`: its operation's declared order where
 * it has one, else the entry's; the declared names first, then the rest in the mock's order.
 */
export function judgedOrder(profile: ServerProfile, operation?: string): readonly ProblemName[] {
  const entry = profile.entries['A-7.precedence'];
  const declared =
    (operation === undefined
      ? undefined
      : (entry.operations as Record<string, { order: ProblemName[] } | undefined> | undefined)?.[operation]
    )?.order ?? entry.order;
  return [...declared, ...defaultProblemOrder.filter((name) => !declared.includes(name))];
}

/**
 * Whether the profile makes the engine read a request body its own way on `operation`: an order other than
 * the mock's, or a strictness switch other than its default. Otherwise the mock's own reading
 * (request-body.ts, operations.ts) answers, exactly as without a profile.
 */
export function readsRequestsItsOwnWay(profile: ServerProfile, operation?: string): boolean {
  if (profile.isDefault) return false;
  const { entries } = profile;
  const order = judgedOrder(profile, operation);
  return (
    order.some((name, index) => name !== defaultProblemOrder[index]) ||
    entries['A-21.duplicate-members'] !== 'last-wins' ||
    entries['A-21.charset'] !== 'accepted' ||
    entries['A-16.non-ascii-key'] !== 'accepted'
  );
}

export { problemNames };
