/**
 * @module profile/write
 * A profile as YAML text: `profile: 2`, then each group of entries with a comment above each
 * entry (what it means, or what a run saw), values in YAML's flow style. Written by hand rather
 * than through the yaml package's document model: the layout is fixed and small, and the
 * comments carry text a server sent, which is cut and stripped of line breaks here so that no
 * answer can add a line of its own to the file. Isomorphic.
 */
import { currentFormat, type EntryName, entryNames, entryTable } from './entries.js';
import { conditionsOf } from './entry-parts.js';
import { splitEntryName } from './profile.js';

const plainKey = /^[A-Za-z$][A-Za-z0-9_-]*$/;
const plainString = /^[A-Za-z_][A-Za-z0-9_./+-]*$/;
/** Plain scalars YAML would read as something other than a string. */
const reserved = /^(true|false|null|yes|no|on|off|y|n|~)$/i;

/**
 * Characters JSON.stringify leaves as they are and a YAML reader refuses in its input (DEL, the
 * C1 controls, U+FFFE, U+FFFF) or may take for a line break: written as `\uXXXX` escapes.
 */
const yamlUnsafe = /[\u007F-\u009F\u2028\u2029\uFFFE\uFFFF]/g;

/** A string as a YAML double-quoted scalar: JSON's escapes, which YAML reads the same, and the ones JSON leaves out. */
function quoted(text: string): string {
  return JSON.stringify(text).replace(yamlUnsafe, (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** A JSON value in YAML flow style: `{status: 400, code: invalid_json}`. */
export function flowYaml(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return `[${value.map(flowYaml).join(', ')}]`;
  if (typeof value === 'object')
    return `{${Object.entries(value as Record<string, unknown>)
      .map(([key, item]) => `${plainKey.test(key) && !reserved.test(key) ? key : quoted(key)}: ${flowYaml(item)}`)
      .join(', ')}}`;
  if (typeof value === 'string') return plainString.test(value) && !reserved.test(value) ? value : quoted(value);
  return String(value);
}

/**
 * A comment line from any text: one line, no control, format or separator character, no lone
 * surrogate or noncharacter (a YAML reader refuses those), at most 200 characters.
 */
export function commentLine(text: string): string {
  const clean = commentText(text);
  // A cut between the two halves of a surrogate pair would leave a lone one, which YAML refuses.
  return `# ${clean.length > 200 ? `${clean.slice(0, 199).replace(/[\uD800-\uDBFF]$/, '')}…` : clean}`;
}

/** Text a comment may hold: no control, format or separator character, no lone surrogate or noncharacter (a YAML reader refuses those). */
function commentText(text: string): string {
  return text.replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}\uFFFE\uFFFF]+/gu, ' ').trim();
}

/** The most an entry's comment says: a server's text in it (a code, a quoted body) is bounded, and cut at a word. */
const maxEntryComment = 600;

function boundedComment(text: string): string {
  if (text.length <= maxEntryComment) return text;
  const cut = text.slice(0, maxEntryComment - 1).replace(/[\uD800-\uDBFF]$/, '');
  const space = cut.lastIndexOf(' ');
  return `${space > maxEntryComment / 2 ? cut.slice(0, space) : cut}…`;
}

/** How wide a wrapped comment's text runs. */
const wrapWidth = 100;

/**
 * Any text whole, as comment lines of at most about 100 characters: broken at spaces, a longer
 * word broken between code points; the lines after the first indented, so a reader sees one
 * item. For what a reader must read to the end (why an entry was left out).
 */
export function commentLines(text: string): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of commentText(text).split(/ +/)) {
    let rest = Array.from(word);
    while (rest.length > 0) {
      const room = wrapWidth - line.length - (line ? 1 : 0);
      if (rest.length <= room) {
        line += `${line ? ' ' : ''}${rest.join('')}`;
        rest = [];
      } else if (line && rest.length <= wrapWidth) {
        lines.push(line);
        line = '';
      } else {
        const take = Math.max(room, 1);
        line += `${line ? ' ' : ''}${rest.slice(0, take).join('')}`;
        rest = rest.slice(take);
        lines.push(line);
        line = '';
      }
    }
  }
  if (line || lines.length === 0) lines.push(line);
  return lines.map((part, index) => (index === 0 ? `# ${part}` : `#   ${part}`).trimEnd());
}

export interface ProfileText {
  /** The entries to write, in the register's order; others are left out. */
  readonly entries: { readonly [Name in EntryName]?: unknown };
  /** Comment lines above each entry (what was seen, or what it means). */
  readonly comments?: { readonly [Name in EntryName]?: readonly string[] };
  /** Comment lines at the top of the file. */
  readonly header?: readonly string[];
  /** Comment items at the end (entries left out, and why), each written whole, wrapped. */
  readonly footer?: readonly string[];
  /**
   * Comment blocks after the footer, each a title line and its items (`- item`), every item
   * written whole, wrapped: the learner's "Not learnt" and, last, "Not expressible".
   */
  readonly blocks?: readonly { readonly title: string; readonly items: readonly string[] }[];
  /**
   * Where the file's JSON Schema is, as the `$schema` comment names it for editors (a path
   * relative to the file's folder, or a URL); default `./node_modules/evidence-harness/profile.schema.json`.
   */
  readonly schema?: string;
}

/** The YAML text of a profile. */
export function profileYaml(options: ProfileText): string {
  const lines: string[] = [
    `# yaml-language-server: $schema=${commentText(options.schema ?? './node_modules/evidence-harness/profile.schema.json')}`,
    ...(options.header ?? []).map(commentLine),
    `profile: ${currentFormat}`,
  ];
  let group = '';
  for (const name of entryNames) {
    const value = options.entries[name];
    if (value === undefined) continue;
    const [owner, entry] = splitEntryName(name);
    if (owner !== group) {
      lines.push('', `${owner}:`);
      group = owner;
    }
    // Wrapped, not cut mid-value: what was seen is read to its end (a comment is bounded all the same).
    for (const comment of options.comments?.[name] ?? []) lines.push(...commentLines(boundedComment(comment)).map((line) => `  ${line}`));
    lines.push(`  ${entry}: ${flowYaml(value)}`);
  }
  if (options.footer && options.footer.length > 0) lines.push('', ...options.footer.flatMap(commentLines));
  for (const block of options.blocks ?? [])
    lines.push('', ...commentLines(block.title), ...block.items.flatMap((item) => commentLines(`- ${item}`)));
  return `${lines.join('\n')}\n`;
}

/** What an entry means, from its schema, with the conditions it may answer apart (for `profile --init`). */
export function entryMeaning(name: EntryName): string {
  const meaning = entryTable[name].schema.description ?? name;
  const conditions = conditionsOf[name];
  return conditions ? `${meaning} Conditions it may answer apart (format 2): ${conditions.join(', ')}.` : meaning;
}
