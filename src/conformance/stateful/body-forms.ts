/**
 * @module conformance/stateful/body-forms
 * Bodies that differ from each other only in a way a server might normalise away before its
 * digest: the items of an array in another order, a string in another Unicode normalisation
 * form. docs/assumptions.md A-5 digests the RFC 8785 (JCS) serialisation of the parsed body,
 * which sorts object members but keeps the order of array items and does not normalise strings,
 * so each such pair is two different requests: the second under the first's key is a 409. Both
 * are found from the spec and the base body (the first array of two different items, the first
 * free-text string), and kept only when valid.
 */
import type { JsonSchema } from '../../openapi/document.js';
import { pointersOf, replacedAt, schemaAt, valueAt } from './body-changes.js';

export type BodyForm = 'reordered' | 'nfc' | 'nfd';

/** Two bodies of one request that differ only in form: the first under a key, the second under it again (409). */
export interface BodyFormPair {
  readonly label: string;
  readonly pointer: string;
  /** The form of the first body; absent: the base body. */
  readonly first?: BodyForm;
  readonly second: BodyForm;
}

/** What a change of form at `pointer` is, in words. */
export function bodyFormChange(form: BodyForm, pointer: string): string {
  return form === 'reordered'
    ? `the items of ${pointer} in another order`
    : `${pointer} in another Unicode normalisation form (${form === 'nfd' ? 'NFD for NFC' : 'NFC for NFD'})`;
}

/** The name a body in a form is kept under. */
export function bodyFormKey(form: BodyForm, pointer: string): string {
  return `${form}:${pointer}`;
}

/** A character whose two normalisation forms differ: é as one code point (NFC) and as e with a combining acute (NFD). */
const composed = '\u00e9';
const decomposed = 'e\u0301';

/**
 * The pairs of bodies that differ only in form, with the bodies they need (by bodyFormKey).
 * Nothing is returned for a form the body has no place for.
 */
export function bodyFormsOf(options: { body: unknown; schema: JsonSchema; isValid: (candidate: unknown) => boolean }): {
  pairs: BodyFormPair[];
  bodies: Map<string, unknown>;
} {
  const { body, schema, isValid } = options;
  const pairs: BodyFormPair[] = [];
  const bodies = new Map<string, unknown>();
  const pointers = pointersOf(body);
  const reorderable = pointers.find((pointer) => {
    const value = valueAt(body, pointer);
    return Array.isArray(value) && new Set(value.map((item) => JSON.stringify(item))).size > 1;
  });
  if (reorderable) {
    const reversed = replacedAt(body, reorderable, [...(valueAt(body, reorderable) as unknown[])].reverse());
    if (isValid(reversed)) {
      bodies.set(bodyFormKey('reordered', reorderable), reversed);
      pairs.push({ label: `the items of ${reorderable} in reverse order`, pointer: reorderable, second: 'reordered' });
    }
  }
  for (const pointer of pointers) {
    const value = valueAt(body, pointer);
    const at = schemaAt(schema, pointer);
    if (typeof value !== 'string' || !at || at.enum || at.pattern || at.format || at.const !== undefined) continue;
    const nfc = replacedAt(body, pointer, `${value}${composed}`);
    const nfd = replacedAt(body, pointer, `${value}${decomposed}`);
    if (!isValid(nfc) || !isValid(nfd)) continue;
    bodies.set(bodyFormKey('nfc', pointer), nfc);
    bodies.set(bodyFormKey('nfd', pointer), nfd);
    pairs.push({ label: `Unicode normalisation form of ${pointer}`, pointer, first: 'nfc', second: 'nfd' });
    break;
  }
  return { pairs, bodies };
}
