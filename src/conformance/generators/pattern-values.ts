/**
 * @module conformance/generators/pattern-values
 * A deterministic value matching a string `pattern` within a schema's length bounds, for the
 * shapes request schemas use: literals and escapes, character classes (ranges, negation,
 * \d \w \s), `.`, groups with alternation, and counted or open repeats (`?`, `*`, `+`,
 * `{n}`, `{n,}`, `{n,m}`), anchored at the ends or not. The value takes each repeat at its
 * smallest count and the first member of each class and alternation, then lengthens the
 * repeats in order until minLength is met. Its near misses come from near-misses.ts, which
 * needs only a valid value and the pattern. A pattern outside these shapes (lookaround,
 * backreferences, \p{…}, \b) or a value the length bounds leave no room for is an
 * UngenerableValueError: the run reports the checks that needed it as not judged, saying why
 * (docs/conformance.md), instead of failing. Own code rather than fast-check's
 * stringMatching: that draws random code points, where a report wants a readable value.
 */
import type { JsonSchema } from '../../openapi/document.js';

/** No value valid against a schema could be built; `reason` says why, for the report. */
export class UngenerableValueError extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'UngenerableValueError';
  }
}

type Node =
  | { readonly kind: 'char'; readonly text: string }
  | { readonly kind: 'seq'; readonly items: readonly Node[] }
  | { readonly kind: 'alt'; readonly items: readonly Node[] }
  | { readonly kind: 'repeat'; readonly item: Node; readonly min: number; readonly max: number; readonly id: number };

class Unsupported extends Error {}

/** Characters tried, in order, as the member of a negated class or of `.`. */
const printable = 'aA0bB1xX_-. ~!#';
/** Longest value built: a repeat is never lengthened past this many code points. */
const maxBuiltLength = 65_536;

class Parser {
  private index = 0;
  private repeats = 0;
  constructor(private readonly source: string) {}

  parse(): { node: Node; repeats: number } {
    const node = this.alternation();
    if (this.index < this.source.length) throw new Unsupported(`an unexpected '${this.source[this.index]}'`);
    return { node, repeats: this.repeats };
  }

  private peek(): string | undefined {
    return this.source[this.index];
  }

  private alternation(): Node {
    const branches: Node[] = [this.sequence()];
    while (this.peek() === '|') {
      this.index += 1;
      branches.push(this.sequence());
    }
    return branches.length === 1 ? branches[0]! : { kind: 'alt', items: branches };
  }

  private sequence(): Node {
    const items: Node[] = [];
    for (let char = this.peek(); char !== undefined && char !== '|' && char !== ')'; char = this.peek()) {
      if (char === '^' || char === '$') {
        // An anchor is only read at a branch's ends, where it constrains nothing more.
        const atStart = char === '^' && items.length === 0;
        const atEnd = char === '$' && (this.index + 1 === this.source.length || /[|)]/.test(this.source[this.index + 1]!));
        if (!atStart && !atEnd) throw new Unsupported(`'${char}' inside a branch`);
        this.index += 1;
        continue;
      }
      items.push(this.quantified(this.atom()));
    }
    return { kind: 'seq', items };
  }

  private atom(): Node {
    const char = this.source[this.index]!;
    this.index += 1;
    if (char === '(') {
      if (this.source.startsWith('?:', this.index)) this.index += 2;
      else if (this.peek() === '?') throw new Unsupported('a lookaround or named group');
      const inner = this.alternation();
      if (this.peek() !== ')') throw new Unsupported('an unclosed group');
      this.index += 1;
      return inner;
    }
    if (char === '[') return { kind: 'char', text: this.classMember() };
    if (char === '.') return { kind: 'char', text: 'a' };
    if (char === '\\') return { kind: 'char', text: this.escape() };
    if ('*+?{'.includes(char)) throw new Unsupported(`a quantifier '${char}' with nothing to repeat`);
    return { kind: 'char', text: char };
  }

  /** The code point an escape stands for, or a member of the class it names. */
  private escape(): string {
    const next = this.source[this.index];
    this.index += 1;
    switch (next) {
      case 'd':
        return '0';
      case 'w':
        return 'a';
      case 's':
        return ' ';
      case 'D':
      case 'W':
      case 'S':
        return '-';
      case 'n':
        return '\n';
      case 't':
        return '\t';
      case 'r':
        return '\r';
      case 'x': {
        const hex = this.source.slice(this.index, this.index + 2);
        this.index += 2;
        return String.fromCodePoint(Number.parseInt(hex, 16));
      }
      case 'u': {
        const braced = /^\{([0-9a-fA-F]+)\}/.exec(this.source.slice(this.index));
        const hex = braced ? braced[1]! : this.source.slice(this.index, this.index + 4);
        this.index += braced ? braced[0].length : 4;
        return String.fromCodePoint(Number.parseInt(hex, 16));
      }
      case undefined:
        throw new Unsupported('a trailing backslash');
      default:
        if (/[a-zA-Z0-9]/.test(next)) throw new Unsupported(`the escape \\${next}`);
        return next;
    }
  }

  /** A member of the class opening at `[`: its first member, or for a negated class a printable outside it. */
  private classMember(): string {
    const start = this.index - 1;
    // JavaScript (u flag, not v) reads the first unescaped `]` as the end: `[` inside is literal.
    let end = this.index;
    while (end < this.source.length && this.source[end] !== ']') end += this.source[end] === '\\' ? 2 : 1;
    if (end >= this.source.length) throw new Unsupported('an unclosed character class');
    this.index = end + 1;
    const text = this.source.slice(start, end + 1);
    if (/\\[pPb]/.test(text)) throw new Unsupported(`the class ${text}`);
    // JavaScript's own reading of the class decides membership, so ranges and escapes inside
    // it mean exactly what the server's matcher reads.
    const member = new RegExp(`^${text}$`, 'u');
    const first = text.startsWith('[^') ? undefined : firstMemberOf(text);
    const candidate = [first, ...printable].find((char) => char !== undefined && member.test(char));
    if (candidate === undefined) throw new Unsupported(`the class ${text}, no member of which is a plain character`);
    return candidate;
  }

  private quantified(item: Node): Node {
    const char = this.peek();
    let min: number;
    let max: number;
    if (char === '?' || char === '*' || char === '+') {
      this.index += 1;
      [min, max] = char === '?' ? [0, 1] : char === '*' ? [0, Number.POSITIVE_INFINITY] : [1, Number.POSITIVE_INFINITY];
    } else if (char === '{') {
      const counted = /^\{(\d+)(,(\d*))?\}/.exec(this.source.slice(this.index));
      if (!counted) return item;
      this.index += counted[0].length;
      min = Number(counted[1]);
      max = counted[2] === undefined ? min : counted[3] === '' ? Number.POSITIVE_INFINITY : Number(counted[3]);
    } else {
      return item;
    }
    if (this.peek() === '?') this.index += 1;
    this.repeats += 1;
    return { kind: 'repeat', item, min, max, id: this.repeats - 1 };
  }
}

/** The first code point a class lists (the start of its first range), if it is a plain one. */
function firstMemberOf(text: string): string | undefined {
  const body = text.slice(1, -1);
  const first = body[0];
  if (first === undefined || first === '\\') return body[1] === 'd' ? '0' : body[1] === 'w' ? 'a' : undefined;
  return String.fromCodePoint(body.codePointAt(0)!);
}

function render(node: Node, counts: readonly number[]): string {
  switch (node.kind) {
    case 'char':
      return node.text;
    case 'seq':
      return node.items.map((item) => render(item, counts)).join('');
    case 'alt':
      return render(node.items[0]!, counts);
    case 'repeat':
      return render(node.item, counts).repeat(counts[node.id]!);
  }
}

/** Repeats reachable in the rendered value (the first branch of each alternation), in order. */
function liveRepeats(node: Node, out: Extract<Node, { kind: 'repeat' }>[] = []): Extract<Node, { kind: 'repeat' }>[] {
  if (node.kind === 'seq') for (const item of node.items) liveRepeats(item, out);
  else if (node.kind === 'alt') liveRepeats(node.items[0]!, out);
  else if (node.kind === 'repeat') {
    out.push(node);
    liveRepeats(node.item, out);
  }
  return out;
}

function setMinimum(node: Node, counts: number[]): void {
  if (node.kind === 'seq' || node.kind === 'alt') for (const item of node.items) setMinimum(item, counts);
  else if (node.kind === 'repeat') {
    counts[node.id] = node.min;
    setMinimum(node.item, counts);
  }
}

const codePoints = (text: string) => [...text].length;

/**
 * A value matching `pattern` whose length lies in [minLength, maxLength], or an
 * UngenerableValueError saying why none was built.
 */
export function patternValue(pattern: string, bounds: { minLength?: number; maxLength?: number } = {}): string {
  const minLength = bounds.minLength ?? 0;
  const maxLength = bounds.maxLength ?? Number.POSITIVE_INFINITY;
  try {
    new RegExp(pattern, 'u');
  } catch {
    throw new UngenerableValueError(`no value is built for pattern ${pattern}: it is not a valid regular expression`);
  }
  let parsed: { node: Node; repeats: number };
  try {
    parsed = new Parser(pattern).parse();
  } catch (error) {
    if (error instanceof Unsupported) throw new UngenerableValueError(`no value is built for pattern ${pattern}: it uses ${error.message}`);
    throw error;
  }
  const counts: number[] = Array.from({ length: parsed.repeats }, () => 0);
  setMinimum(parsed.node, counts);
  let value = render(parsed.node, counts);
  // Lengthen the repeats in order, one count at a time, until minLength is met.
  for (const repeat of liveRepeats(parsed.node)) {
    while (codePoints(value) < minLength && counts[repeat.id]! < repeat.max && codePoints(value) < maxBuiltLength) {
      const before = codePoints(value);
      counts[repeat.id]! += 1;
      value = render(parsed.node, counts);
      if (codePoints(value) === before) break;
    }
  }
  // A pattern not anchored at its end matches wherever it occurs: filler after it is allowed.
  const regex = new RegExp(pattern, 'u');
  const padded = value + 'a'.repeat(Math.max(0, minLength - codePoints(value)));
  if (codePoints(value) < minLength && minLength <= maxBuiltLength && regex.test(padded)) value = padded;
  const length = codePoints(value);
  if (length < minLength || length > maxLength) {
    throw new UngenerableValueError(
      `no value of pattern ${pattern} was found within minLength ${minLength} and maxLength ${bounds.maxLength ?? 'none'}`,
    );
  }
  if (!regex.test(value)) {
    throw new UngenerableValueError(
      `no value is built for pattern ${pattern}: the value built ('${value.slice(0, 16)}') does not match it`,
    );
  }
  return value;
}

/** The string a schema with a pattern gets (mutations.ts's valid value). */
export function patternValueOf(schema: JsonSchema & { pattern: string }): string {
  return patternValue(schema.pattern, {
    minLength: schema.minLength as number | undefined,
    maxLength: schema.maxLength as number | undefined,
  });
}
