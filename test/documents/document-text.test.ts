/**
 * A scenario file's errors quote at most a few dozen characters of it (docs/assumptions.md
 * A-27): the yaml package's code frame, V8's JSON excerpts and zod's quoted keys all go through
 * document-text.ts. Line and column stay.
 */
import { afterEach, expect, it, vi } from 'vitest';
import { escapeControls, lineFrame, maxQuotedChars, parseDocumentText, withShortQuotes } from '../../src/documents/document-text.js';
import { scenarioFromText } from '../../src/server/scenario-file.js';

afterEach(() => {
  vi.restoreAllMocks();
});

/** The longest piece of `text` that `message` repeats. */
function longestQuote(message: string, text: string): string {
  let longest = '';
  for (let start = 0; start < message.length; start += 1) {
    let end = start + longest.length + 1;
    while (end <= message.length && text.includes(message.slice(start, end))) end += 1;
    if (end - 1 - start > longest.length) longest = message.slice(start, end - 1);
  }
  return longest;
}

async function messageOf(promise: Promise<unknown>): Promise<string> {
  return promise.then(
    () => {
      throw new Error('expected a refusal');
    },
    (error: Error) => error.message,
  );
}

const secret = 'SECRET-7f3a9c1e-aaaa-bbbb-cccc-dddd-eeee-ffff-0123456789';

it('a YAML error gives the line and column and at most 40 characters of the file', async () => {
  const text = `name: x\nfaults:\n  - status: 503\n    note: ${secret}-${secret}: oops\n  # ${secret}\n`;
  const message = await messageOf(scenarioFromText({ text, path: 'leaky.yaml' }));
  expect(message).toContain('leaky.yaml is not valid YAML: Nested mappings are not allowed in compact mappings at line 4, column 11');
  expect(longestQuote(message, text).length).toBeLessThanOrEqual(maxQuotedChars);
  expect(message).not.toContain(secret);
});

it('a JSON error gives the line and column and at most 40 characters of the file', async () => {
  const text = `{\n  "name": "x", "note": "${secret}${secret}" "faults": []\n}\n`;
  const message = await messageOf(scenarioFromText({ text, path: 'leaky.json' }));
  expect(message).toMatch(/leaky\.json is not valid JSON: .* at line 2, column \d+/);
  expect(longestQuote(message, text).length).toBeLessThanOrEqual(maxQuotedChars);
});

it('a key the schema refuses is quoted cut to 40 characters', async () => {
  const text = JSON.stringify({ name: 'x', [`${secret}${secret}`]: 1 });
  const message = await messageOf(scenarioFromText({ text, path: 'keys.json' }));
  expect(message).toMatch(/^keys\.json: invalid scenario:\n {2}\(root\) \(line 1, column \d+\): .*SECRET-7f3a9c1e/);
  expect(longestQuote(message, text).length).toBeLessThanOrEqual(maxQuotedChars);
});

it('the yaml package prints no warning of its own (its warnings quote the file)', async () => {
  const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
  expect(await parseDocumentText({ text: `a: !${secret} x\n`, yaml: true })).toEqual({ a: 'x' });
  expect(warn).not.toHaveBeenCalled();
});

it('a code frame shows the line cut around the column, with the caret under it', () => {
  const line = `${'a'.repeat(60)}X${'b'.repeat(60)}`;
  const frame = lineFrame(`first\n${line}\n`, { line: 2, column: 61 });
  const [shown, caret] = frame.split('\n');
  expect(shown).toBe(`…${'a'.repeat(19)}X${'b'.repeat(19)}…`);
  expect(shown![caret!.indexOf('^')]).toBe('X');
  expect(lineFrame('short: line\n', { line: 1, column: 6 })).toBe('short: line\n     ^');
});

it('withShortQuotes cuts each long run of the file and keeps the words around it', () => {
  const text = `prefix ${secret}${secret} suffix and a short-piece`;
  const message = `Unrecognized key: "${secret}${secret}" and "a short-piece" at line 1`;
  expect(withShortQuotes(message, text)).toBe(
    `Unrecognized key: "${`${secret}${secret}`.slice(0, maxQuotedChars)}…" and "a short-piece" at line 1`,
  );
  expect(withShortQuotes('nothing quoted', text)).toBe('nothing quoted');
});

// biome-ignore lint/suspicious/noControlCharactersInRegex: the characters a hostile file would smuggle out
const terminalActive = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/;

it('escapes what a terminal acts on (C0, DEL, C1, bidi controls, line separators) and nothing else', () => {
  expect(escapeControls('a\x1b[31mb\x07c\x00d\x7fe\x9bf\u202eg\u2066h\u2028i\u2029j\u200fk\tl')).toBe(
    'a\\x1b[31mb\\x07c\\x00d\\x7fe\\x9bf\\u202eg\\u2066h\\u2028i\\u2029j\\u200fk\\x09l',
  );
  expect(escapeControls('line\nnext')).toBe('line\\x0anext');
  expect(escapeControls('line\nnext', { keepLineFeeds: true })).toBe('line\nnext');
  expect(escapeControls('plain ascii, é, 日本, emoji 🙂')).toBe('plain ascii, é, 日本, emoji 🙂');
});

it("a frame and a parser's quote of a hostile line show its escapes as text, the caret under the column", async () => {
  const frame = lineFrame('key: \x1b]0;TITLE\x07 : [', { line: 1, column: 17 });
  expect(frame).toBe(`key: \\x1b]0;TITLE\\x07 : [\n${' '.repeat(22)}^`);
  expect(frame.split('\n')[0]!.slice(frame.split('\n')[1]!.indexOf('^'))).toBe(': [');
  expect(withShortQuotes('bad key \u202eexe.txt\nsecond line', 'x')).toBe('bad key \\u202eexe.txt\nsecond line');
  for (const text of ['a: {b: \x1b[31mRED\x1b]0;TITLE\x07 : [}\n', '{"a": "\u202e\x9b\x00" x}']) {
    const message = await messageOf(parseDocumentText({ text, yaml: !text.startsWith('{') }));
    expect(message).not.toMatch(terminalActive);
  }
});
