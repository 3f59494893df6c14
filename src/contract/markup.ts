/**
 * @module contract/markup
 * The one HTML/XML escaper. Every report page and JUnit file, and the scrubber's idea of what a
 * secret looks like once a page has escaped it, use this function, so they cannot disagree.
 * Isomorphic: it imports nothing.
 */

/** What each character becomes; `''` drops it. */
function replacementOf(code: number): string | undefined {
  switch (code) {
    case 0x26:
      return '&amp;';
    case 0x3c:
      return '&lt;';
    case 0x3e:
      return '&gt;';
    case 0x22:
      return '&quot;';
    case 0x27:
      return '&#39;';
  }
  // XML 1.0 cannot hold the C0 controls but tab, line feed and carriage return, nor U+FFFE and
  // U+FFFF, not even as character references; HTML treats them as parse errors. They are dropped.
  if (code < 0x20) return code === 0x9 || code === 0xa || code === 0xd ? undefined : '';
  return code === 0xfffe || code === 0xffff ? '' : undefined;
}

/**
 * `text` safe inside HTML or XML element content and in a quoted attribute value: `& < > " '`
 * become `&amp; &lt; &gt; &quot; &#39;`, and the characters XML 1.0 cannot hold are dropped.
 * Text with none of them is returned as it is.
 */
export function escapeMarkup(text: string): string {
  let escaped = '';
  let kept = 0;
  for (let index = 0; index < text.length; index += 1) {
    const replacement = replacementOf(text.charCodeAt(index));
    if (replacement === undefined) continue;
    escaped += text.slice(kept, index) + replacement;
    kept = index + 1;
  }
  return kept === 0 ? text : escaped + text.slice(kept);
}
