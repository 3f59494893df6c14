/**
 * @module conformance/stateful/key-forms
 * Idempotency-Keys that differ only in form: letter case, whitespace, Unicode normalisation. A
 * key is the header's value as sent (docs/assumptions.md A-16: the raw header value), so each
 * form is a key of its own; a server that lower-cases, trims or normalises keys before looking
 * them up takes two of them for one key, and answers the second create with the first one's job
 * or a 409.
 *
 * Keys travel as header octets: a form is a string of one character per byte (latin1), which is
 * how Node's client writes a header and how Node's server reads one. Non-ASCII text is sent as
 * its UTF-8 bytes. Spaces and tabs around a field value are not part of it (RFC 9110 §5.5), so
 * "surrounding whitespace" is a no-break space, which HTTP keeps: the lone byte 0xA0 (what a
 * server reading headers as latin1, as Node's does, trims as U+00A0) and U+00A0 in UTF-8 (what
 * a server decoding UTF-8 trims).
 */

export type KeyForm = 'upper-case' | 'trailing-nbsp' | 'utf8-nbsps' | 'inner-space' | 'inner-spaces' | 'nfc' | 'nfd';

/** Text as the octets of its UTF-8 encoding, one character per byte. */
function utf8Octets(text: string): string {
  return Buffer.from(text, 'utf8').toString('latin1');
}

/** The header value of `key` in `form` (the key as it is when no form is given). */
export function keyInForm(key: string, form: KeyForm | undefined): string {
  const middle = Math.floor(key.length / 2);
  switch (form) {
    case undefined:
      return key;
    case 'upper-case':
      return key.toUpperCase();
    case 'trailing-nbsp':
      return `${key}\u00a0`;
    case 'utf8-nbsps':
      return `${utf8Octets('\u00a0')}${key}${utf8Octets('\u00a0')}`;
    case 'inner-space':
      return `${key.slice(0, middle)} ${key.slice(middle)}`;
    case 'inner-spaces':
      return `${key.slice(0, middle)}  ${key.slice(middle)}`;
    case 'nfc':
      return `${key}-${utf8Octets('\u00e9')}`;
    case 'nfd':
      return `${key}-${utf8Octets('e\u0301')}`;
  }
}

/** The form in words, for a step's description. */
export function keyFormName(form: KeyForm): string {
  switch (form) {
    case 'upper-case':
      return 'in upper case';
    case 'trailing-nbsp':
      return 'with a trailing byte 0xA0 (a no-break space)';
    case 'utf8-nbsps':
      return 'between two no-break spaces (UTF-8)';
    case 'inner-space':
      return 'with one inner space';
    case 'inner-spaces':
      return 'with two inner spaces';
    case 'nfc':
      return 'ending in é as one code point (NFC, UTF-8)';
    case 'nfd':
      return 'ending in e and a combining acute (NFD, UTF-8)';
  }
}

/** How a key in `form` differs from the first form of its pair, for titles. */
export function keyFormDifference(form: KeyForm): string {
  switch (form) {
    case 'upper-case':
      return 'letter case';
    case 'trailing-nbsp':
      return 'a trailing no-break space (byte 0xA0)';
    case 'utf8-nbsps':
      return 'surrounding no-break spaces (U+00A0 in UTF-8)';
    case 'inner-space':
    case 'inner-spaces':
      return 'inner whitespace (two spaces for one)';
    case 'nfc':
    case 'nfd':
      return 'Unicode normalisation form (NFD for NFC)';
  }
}

/** Two forms of one key: a create under the first, then another body under the second, which must be a new job. */
export interface KeyFormPair {
  readonly label: string;
  readonly first?: KeyForm;
  readonly second: KeyForm;
}

export const keyFormPairs: readonly KeyFormPair[] = [
  { label: 'keys differing only by letter case', second: 'upper-case' },
  { label: 'keys differing only by a trailing no-break space (byte 0xA0)', second: 'trailing-nbsp' },
  { label: 'keys differing only by surrounding no-break spaces (UTF-8)', second: 'utf8-nbsps' },
  { label: 'keys differing only by inner whitespace', first: 'inner-space', second: 'inner-spaces' },
  { label: 'keys differing only by Unicode normalisation form', first: 'nfc', second: 'nfd' },
];
