/**
 * @module evolution/pattern-containment
 * Whether one `pattern` accepts every string another does. Decided for the regular
 * subset contracts use: literals, escapes, character classes (ranges, negation, \d \w \s),
 * `.`, groups, alternation, counted and open repeats, `^` and `$` at the ends of a top-level
 * branch, a pattern without them searching anywhere (JSON Schema's unanchored match). Each
 * pattern becomes an automaton over code points, its alphabet cut into the intervals both
 * patterns distinguish, and inclusion is a walk of the pair of determinised automata. Anything
 * else (backreferences, lookaround, \b, \p{…}, anchors inside a branch) or a pattern whose
 * automaton would be too large is left undecided, and the caller keeps its conservative
 * answer, saying why. Isomorphic and dependency-free (src/evolution imports no package: re2js
 * compiles patterns but answers no question about two of them).
 */

type Range = readonly [number, number];
type Node =
  | { readonly kind: 'set'; readonly ranges: readonly Range[] }
  | { readonly kind: 'seq'; readonly items: readonly Node[] }
  | { readonly kind: 'alt'; readonly items: readonly Node[] }
  | { readonly kind: 'repeat'; readonly item: Node; readonly min: number; readonly max: number };

class Undecided extends Error {}

const maxCode = 0x10ffff;
const lineTerminators: Range[] = [
  [0x0a, 0x0a],
  [0x0d, 0x0d],
  [0x2028, 0x2029],
];
const digit: Range[] = [[0x30, 0x39]];
const word: Range[] = [
  [0x30, 0x39],
  [0x41, 0x5a],
  [0x5f, 0x5f],
  [0x61, 0x7a],
];
const space: Range[] = [
  [0x09, 0x0d],
  [0x20, 0x20],
  [0xa0, 0xa0],
  [0x1680, 0x1680],
  [0x2000, 0x200a],
  [0x2028, 0x2029],
  [0x202f, 0x202f],
  [0x205f, 0x205f],
  [0x3000, 0x3000],
  [0xfeff, 0xfeff],
];

function normalise(ranges: readonly Range[]): Range[] {
  const sorted = [...ranges].sort((a, b) => a[0] - b[0]);
  const out: [number, number][] = [];
  for (const [lo, hi] of sorted) {
    const last = out.at(-1);
    if (last && lo <= last[1] + 1) last[1] = Math.max(last[1], hi);
    else out.push([lo, hi]);
  }
  return out;
}

function complement(ranges: readonly Range[]): Range[] {
  const out: Range[] = [];
  let next = 0;
  for (const [lo, hi] of normalise(ranges)) {
    if (lo > next) out.push([next, lo - 1]);
    next = hi + 1;
  }
  if (next <= maxCode) out.push([next, maxCode]);
  return out;
}

const single = (code: number): Node => ({ kind: 'set', ranges: [[code, code]] });
const anyChar: Node = { kind: 'set', ranges: [[0, maxCode]] };

/** A recursive-descent reader of the subset; throws Undecided for anything outside it. */
class Reader {
  private index = 0;
  private readonly chars: string[];
  constructor(pattern: string) {
    this.chars = [...pattern];
  }

  /** Top level: branches, each with its own anchors. */
  top(): { node: Node; start: boolean; end: boolean }[] {
    const branches: { node: Node; start: boolean; end: boolean }[] = [];
    for (;;) {
      const start = this.peek() === '^';
      if (start) this.index += 1;
      const node = this.sequence(0);
      const end = this.peek() === '$';
      if (end) this.index += 1;
      branches.push({ node, start, end });
      if (this.peek() === '|') this.index += 1;
      else if (this.peek() === undefined) return branches;
      else throw new Undecided(`'${this.peek()}' where a branch ends`);
    }
  }

  private peek(offset = 0): string | undefined {
    return this.chars[this.index + offset];
  }

  private alternation(depth: number): Node {
    const items = [this.sequence(depth)];
    while (this.peek() === '|') {
      this.index += 1;
      items.push(this.sequence(depth));
    }
    return items.length === 1 ? items[0]! : { kind: 'alt', items };
  }

  private sequence(depth: number): Node {
    if (depth > 32) throw new Undecided('groups nested more than 32 deep');
    const items: Node[] = [];
    for (let next = this.peek(); next !== undefined && next !== '|' && next !== ')'; next = this.peek()) {
      if (next === '$' && depth === 0) break;
      items.push(this.quantified(this.atom(depth)));
    }
    return { kind: 'seq', items };
  }

  private atom(depth: number): Node {
    const next = this.chars[this.index++]!;
    if (next === '(') {
      if (this.peek() === '?') {
        if (this.peek(1) !== ':') throw new Undecided('a lookaround or named group');
        this.index += 2;
      }
      const inner = this.alternation(depth + 1);
      if (this.chars[this.index++] !== ')') throw new Undecided('an unclosed group');
      return inner;
    }
    if (next === '[') return { kind: 'set', ranges: this.characterClass() };
    if (next === '.') return { kind: 'set', ranges: complement(lineTerminators) };
    if (next === '\\') return { kind: 'set', ranges: this.escape(false) };
    if ('^$*+?{})]|'.includes(next)) throw new Undecided(`'${next}' inside a branch`);
    return single(next.codePointAt(0)!);
  }

  private quantified(item: Node): Node {
    const next = this.peek();
    let bounds: [number, number] | undefined;
    if (next === '*') bounds = [0, Number.POSITIVE_INFINITY];
    else if (next === '+') bounds = [1, Number.POSITIVE_INFINITY];
    else if (next === '?') bounds = [0, 1];
    if (bounds) this.index += 1;
    else if (next === '{') {
      const rest = this.chars.slice(this.index).join('');
      const counted = /^\{(\d{1,4})(,(\d{0,4}))?\}/.exec(rest);
      if (!counted) throw new Undecided('a { that is not a counted repeat');
      const min = Number(counted[1]);
      const max = counted[2] === undefined ? min : counted[3] === '' ? Number.POSITIVE_INFINITY : Number(counted[3]);
      if (max < min) throw new Undecided('a repeat whose maximum is under its minimum');
      this.index += [...counted[0]].length;
      bounds = [min, max];
    }
    if (!bounds) return item;
    if (this.peek() === '?') this.index += 1; // lazy: the same strings
    if ('*+?{'.includes(this.peek() ?? '')) throw new Undecided('a repeat of a repeat');
    return { kind: 'repeat', item, min: bounds[0], max: bounds[1] };
  }

  private characterClass(): Range[] {
    const negated = this.peek() === '^';
    if (negated) this.index += 1;
    if (this.peek() === ']') throw new Undecided('an empty character class');
    const ranges: Range[] = [];
    for (;;) {
      const next = this.chars[this.index++];
      if (next === undefined) throw new Undecided('an unclosed character class');
      if (next === ']') break;
      const low = next === '\\' ? this.escape(true) : [[next.codePointAt(0)!, next.codePointAt(0)!] as Range];
      if (this.peek() === '-' && this.peek(1) !== ']' && this.peek(1) !== undefined) {
        this.index += 1;
        const after = this.chars[this.index++]!;
        const high = after === '\\' ? this.escape(true) : [[after.codePointAt(0)!, after.codePointAt(0)!] as Range];
        if (low.length !== 1 || high.length !== 1 || low[0]![0] !== low[0]![1] || high[0]![0] !== high[0]![1])
          throw new Undecided('a range between classes');
        if (high[0]![0] < low[0]![0]) throw new Undecided('a range out of order');
        ranges.push([low[0]![0], high[0]![0]]);
      } else ranges.push(...low);
    }
    return negated ? complement(ranges) : normalise(ranges);
  }

  private escape(inClass: boolean): Range[] {
    const next = this.chars[this.index++];
    if (next === undefined) throw new Undecided('a trailing backslash');
    const classes: Record<string, Range[]> = {
      d: digit,
      D: complement(digit),
      w: word,
      W: complement(word),
      s: space,
      S: complement(space),
    };
    if (classes[next]) return classes[next]!;
    const controls: Record<string, number> = { n: 0x0a, r: 0x0d, t: 0x09, f: 0x0c, v: 0x0b, '0': 0 };
    if (next in controls && !(next === '0' && /\d/.test(this.peek() ?? ''))) return [[controls[next]!, controls[next]!]];
    if (next === 'x' || next === 'u') {
      const rest = this.chars.slice(this.index).join('');
      const hex = (next === 'x' ? /^[0-9a-fA-F]{2}/ : /^(\{[0-9a-fA-F]{1,6}\}|[0-9a-fA-F]{4})/).exec(rest);
      if (!hex) throw new Undecided(`\\${next} without its hex digits`);
      this.index += hex[0].length;
      const code = Number.parseInt(hex[0].replace(/[{}]/g, ''), 16);
      if (code > maxCode || (code >= 0xd800 && code <= 0xdfff)) throw new Undecided('a surrogate or out-of-range escape');
      return [[code, code]];
    }
    if (inClass && next === '-') return [[0x2d, 0x2d]];
    if (/^[$^\\.*+?()[\]{}|/]$/.test(next)) return [[next.codePointAt(0)!, next.codePointAt(0)!]];
    throw new Undecided(`the escape \\${next}`);
  }
}

/** A Thompson automaton: states with character moves (on ranges) and empty moves. */
interface Automaton {
  readonly moves: { ranges: readonly Range[]; to: number }[][];
  readonly empty: number[][];
  readonly start: number;
  readonly accept: number;
}

const maxStates = 4000;

class Builder {
  readonly moves: { ranges: readonly Range[]; to: number }[][] = [];
  readonly empty: number[][] = [];

  state(): number {
    if (this.moves.length >= maxStates) throw new Undecided(`an automaton over ${maxStates} states`);
    this.moves.push([]);
    this.empty.push([]);
    return this.moves.length - 1;
  }

  /** A fragment for `node` from a new state to another; returns both. */
  fragment(node: Node): [number, number] {
    const from = this.state();
    const to = this.state();
    this.link(node, from, to);
    return [from, to];
  }

  link(node: Node, from: number, to: number): void {
    if (node.kind === 'set') this.moves[from]!.push({ ranges: node.ranges, to });
    else if (node.kind === 'alt') for (const item of node.items) this.link(item, from, to);
    else if (node.kind === 'seq') {
      let at = from;
      for (const item of node.items) {
        const next = this.state();
        this.link(item, at, next);
        at = next;
      }
      this.empty[at]!.push(to);
    } else this.repeat(node, from, to);
  }

  private repeat(node: Extract<Node, { kind: 'repeat' }>, from: number, to: number): void {
    let at = from;
    for (let count = 0; count < node.min; count += 1) {
      const next = this.state();
      this.link(node.item, at, next);
      at = next;
    }
    if (node.max === Number.POSITIVE_INFINITY) {
      const [loopFrom, loopTo] = this.fragment(node.item);
      this.empty[at]!.push(loopFrom, to);
      this.empty[loopTo]!.push(loopFrom, to);
      return;
    }
    for (let count = node.min; count < node.max; count += 1) {
      const next = this.state();
      this.empty[at]!.push(to);
      this.link(node.item, at, next);
      at = next;
    }
    this.empty[at]!.push(to);
  }
}

function automatonOf(pattern: string): Automaton {
  if ([...pattern].length > 1000) throw new Undecided('a pattern over 1000 characters');
  const branches = new Reader(pattern).top();
  const anyString: Node = { kind: 'repeat', item: anyChar, min: 0, max: Number.POSITIVE_INFINITY };
  const builder = new Builder();
  const start = builder.state();
  const accept = builder.state();
  for (const branch of branches) {
    const items = [...(branch.start ? [] : [anyString]), branch.node, ...(branch.end ? [] : [anyString])];
    builder.link({ kind: 'seq', items }, start, accept);
  }
  return { moves: builder.moves, empty: builder.empty, start, accept };
}

/** The points where some move of either automaton starts or stops accepting a character. */
function alphabet(automata: readonly Automaton[]): number[] {
  const points = new Set<number>([0, maxCode + 1]);
  for (const automaton of automata)
    for (const moves of automaton.moves)
      for (const move of moves)
        for (const [lo, hi] of move.ranges) {
          points.add(lo);
          points.add(hi + 1);
        }
  return [...points].sort((a, b) => a - b);
}

class Determinised {
  private readonly closures = new Map<string, number[]>();
  constructor(
    readonly automaton: Automaton,
    private readonly points: readonly number[],
  ) {}

  closure(states: Iterable<number>): number[] {
    const seen = new Set<number>();
    const stack = [...states];
    while (stack.length > 0) {
      const state = stack.pop()!;
      if (seen.has(state)) continue;
      seen.add(state);
      stack.push(...this.automaton.empty[state]!);
    }
    return [...seen].sort((a, b) => a - b);
  }

  accepts(states: readonly number[]): boolean {
    return states.includes(this.automaton.accept);
  }

  /** The states after reading any character of the interval starting at `points[atom]`. */
  step(states: readonly number[], atom: number): number[] {
    const key = `${states.join(',')}@${atom}`;
    const known = this.closures.get(key);
    if (known) return known;
    const code = this.points[atom]!;
    const targets: number[] = [];
    for (const state of states)
      for (const move of this.automaton.moves[state]!) if (move.ranges.some(([lo, hi]) => lo <= code && code <= hi)) targets.push(move.to);
    const result = this.closure(targets);
    this.closures.set(key, result);
    return result;
  }

  /** The intervals some move of `states` reads. */
  atoms(states: readonly number[]): number[] {
    const atoms = new Set<number>();
    for (const state of states)
      for (const move of this.automaton.moves[state]!)
        for (const [lo, hi] of move.ranges)
          for (let index = lowerBound(this.points, lo); index < this.points.length - 1 && this.points[index]! <= hi; index += 1)
            atoms.add(index);
    return [...atoms];
  }
}

function lowerBound(points: readonly number[], value: number): number {
  let low = 0;
  let high = points.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (points[middle]! < value) low = middle + 1;
    else high = middle;
  }
  return low;
}

const maxPairs = 20_000;

/** Whether every string `a` accepts, `b` accepts too. */
function included(a: Determinised, b: Determinised): boolean {
  const first: [number[], number[]] = [a.closure([a.automaton.start]), b.closure([b.automaton.start])];
  const seen = new Set<string>();
  const queue = [first];
  while (queue.length > 0) {
    const [left, right] = queue.pop()!;
    const key = `${left.join(',')}|${right.join(',')}`;
    if (seen.has(key)) continue;
    seen.add(key);
    if (seen.size > maxPairs) throw new Undecided(`more than ${maxPairs} states to compare`);
    if (a.accepts(left) && !b.accepts(right)) return false;
    for (const atom of a.atoms(left)) {
      const nextLeft = a.step(left, atom);
      if (nextLeft.length > 0) queue.push([nextLeft, b.step(right, atom)]);
    }
  }
  return true;
}

/** How NEW's language stands to OLD's: the same, fewer strings, more, or each has some the other lacks. */
export type PatternRelation = 'equal' | 'narrows' | 'widens' | 'both';

export type PatternComparison = { readonly relation: PatternRelation } | { readonly undecided: string };

/** Compares the strings two patterns accept; `undecided` says why when it cannot. */
export function compareRegexLanguages(old: string, next: string): PatternComparison {
  try {
    const automata = [automatonOf(old), automatonOf(next)];
    const points = alphabet(automata);
    const [before, after] = automata.map((automaton) => new Determinised(automaton, points)) as [Determinised, Determinised];
    const newInOld = included(after, before);
    const oldInNew = included(before, after);
    const relation: PatternRelation = newInOld && oldInNew ? 'equal' : newInOld ? 'narrows' : oldInNew ? 'widens' : 'both';
    return { relation };
  } catch (error) {
    if (error instanceof Undecided) return { undecided: error.message };
    throw error;
  }
}
