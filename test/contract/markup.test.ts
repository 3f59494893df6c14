/**
 * The one HTML/XML escaper every report uses: the five markup characters, and the characters
 * XML 1.0 cannot hold dropped, so a JUnit file stays well-formed whatever a server sent.
 */
import { expect, it } from 'vitest';
import { escapeMarkup } from '../../src/contract/markup.js';

it('escapes & < > " and \' for element content and quoted attributes', () => {
  expect(escapeMarkup(`<a href="x" title='y'>&amp;</a>`)).toBe('&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;amp;&lt;/a&gt;');
});

it('drops the characters XML 1.0 cannot hold and keeps tab, line feed, carriage return and the rest', () => {
  expect(escapeMarkup('a\u0000b\u0008c\u000bd\u000ce\u001ff\ufffeg\uffffh')).toBe('abcdefgh');
  expect(escapeMarkup('tab\tlf\ncr\r é 😀 \u007f')).toBe('tab\tlf\ncr\r é 😀 \u007f');
});

it('returns text with nothing to escape as it is', () => {
  const text = 'plain text, 100% safe';
  expect(escapeMarkup(text)).toBe(text);
  expect(escapeMarkup('')).toBe('');
  expect(escapeMarkup('&')).toBe('&amp;');
});
