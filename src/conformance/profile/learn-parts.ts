/**
 * @module conformance/profile/learn-parts
 * How the learner decides an error entry from answers that came on several operations and
 * conditions (A-50, format 2): answers that differ by operation or by condition are split into
 * the entry's parts (`operations`, `conditions`, src/profile/entry-parts.ts), never dropped.
 * Only answers that differ for the same operation and condition are a disagreement, and it
 * names those requests. A split format 2 cannot declare (answers that differ by operation and
 * condition together, in a way no part can say) is reported as not expressible.
 */
import type { EntryName } from '../../profile/entries.js';
import { type AnswerPart, answerFor, keeps400, partExtras, sideConditions } from '../../profile/entry-parts.js';
import type { Disagreement } from './learn.js';

/** An answer as the learner kept it: the value seen, how often, the first request's line, and where it came. */
export interface SeenAnswer {
  readonly value: unknown;
  count: number;
  readonly seen: string;
  readonly operation?: string;
  readonly condition?: string;
}

export type PartsDecision =
  | { readonly kind: 'learnt'; readonly value: Record<string, unknown>; readonly comments: string[] }
  | { readonly kind: 'disagreement'; readonly disagreement: Disagreement }
  | { readonly kind: 'not-learnt'; readonly reason: string; readonly notExpressible?: string };

type Answer = Readonly<Record<string, unknown>>;

/** One operation and condition's answer: all its requests were answered alike. */
interface Cell {
  readonly operation?: string;
  readonly condition?: string;
  readonly answer: Answer;
  readonly count: number;
  readonly seen: string;
}

/** `createEvaluation, condition minLength`: which requests a cell stands for. */
function cellName(cell: { operation?: string; condition?: string }): string {
  return [cell.operation ?? 'any operation', ...(cell.condition ? [`condition ${cell.condition}`] : [])].join(', ');
}

/** Whether a seen answer keeps to an expected one: each part seen (a status may not be) equal. */
function matches(seen: Answer, expected: Answer): boolean {
  return Object.entries(seen).every(([part, value]) => JSON.stringify(expected[part]) === JSON.stringify(value));
}

/** The answers of one cell, those without a status (an operation without a 413) merged into those with one of the same code. */
function mergedAnswers(answers: readonly SeenAnswer[]): SeenAnswer[] {
  const withStatus = answers.filter((answer) => (answer.value as Answer).status !== undefined);
  const merged = new Map<string, SeenAnswer>(withStatus.map((answer) => [JSON.stringify(answer.value), { ...answer }]));
  for (const answer of answers.filter((candidate) => !withStatus.includes(candidate))) {
    const match = [...merged.values()].find((candidate) => (candidate.value as Answer).code === (answer.value as Answer).code);
    if (match) match.count += answer.count;
    else merged.set(JSON.stringify(answer.value), { ...answer });
  }
  return [...merged.values()];
}

/** The answer most requests got (one with a status first): the part a group of cells declares. */
function mostCommon(cells: readonly Cell[]): Answer {
  const tally = new Map<string, { answer: Answer; count: number }>();
  for (const cell of cells) {
    const key = JSON.stringify(cell.answer);
    const kept = tally.get(key) ?? { answer: cell.answer, count: 0 };
    kept.count += cell.count;
    tally.set(key, kept);
  }
  const ranked = [...tally.values()].sort(
    (a, b) => Number(b.answer.status !== undefined) - Number(a.answer.status !== undefined) || b.count - a.count,
  );
  return ranked[0]!.answer;
}

/**
 * A part from an answer: its status (400 on an operation without a 413; else the entry's when not
 * seen) and code, and the header switches (Retry-After, Allow) where they differ from the entry's.
 */
function partOf(entry: EntryName, answer: Answer, base: Answer, operation?: string): AnswerPart {
  const status = keeps400(entry, operation) ? 400 : ((answer.status as number | undefined) ?? (base.status as number));
  const switches = partExtras.filter((name) => answer[name] !== undefined && answer[name] !== base[name]);
  return { status, code: answer.code as string, ...Object.fromEntries(switches.map((name) => [name, answer[name]])) };
}

interface Candidate {
  readonly value: Record<string, unknown>;
  readonly parts: number;
}

function withParts(base: Answer, operations: Record<string, AnswerPart>, conditions: Record<string, AnswerPart>): Candidate {
  return {
    value: {
      ...base,
      ...(Object.keys(operations).length > 0 ? { operations } : {}),
      ...(Object.keys(conditions).length > 0 ? { conditions } : {}),
    },
    parts: Object.keys(operations).length + Object.keys(conditions).length,
  };
}

const expectedFor = (entry: EntryName, value: Record<string, unknown>, cell: Cell) =>
  answerFor(entry, value as unknown as AnswerPart, { operation: cell.operation, condition: cell.condition }) as unknown as Answer;

/** Operations first: each operation's most common answer, then the conditions whose answers still differ. */
function operationsFirst(entry: EntryName, cells: readonly Cell[]): Candidate {
  const base = mostCommon(cells);
  const operations: Record<string, AnswerPart> = {};
  for (const operation of new Set(cells.flatMap((cell) => (cell.operation ? [cell.operation] : [])))) {
    const answer = mostCommon(cells.filter((cell) => cell.operation === operation));
    if (!matches(answer, answerFor(entry, base as unknown as AnswerPart, { operation }) as unknown as Answer))
      operations[operation] = partOf(entry, answer, base, operation);
  }
  const coarse = withParts(base, operations, {}).value;
  const conditions: Record<string, AnswerPart> = {};
  for (const condition of new Set(cells.flatMap((cell) => (cell.condition ? [cell.condition] : [])))) {
    const ofCondition = cells.filter((cell) => cell.condition === condition);
    if (ofCondition.some((cell) => !matches(cell.answer, expectedFor(entry, coarse, { ...cell, condition: undefined }))))
      conditions[condition] = partOf(entry, mostCommon(ofCondition), base);
  }
  return withParts(base, operations, conditions);
}

/** Conditions first: each condition's most common answer, then the operations whose other answers still differ. */
function conditionsFirst(entry: EntryName, cells: readonly Cell[]): Candidate {
  const plain = cells.filter((cell) => cell.condition === undefined);
  const base = mostCommon(plain.length > 0 ? plain : cells);
  const conditions: Record<string, AnswerPart> = {};
  for (const condition of new Set(cells.flatMap((cell) => (cell.condition ? [cell.condition] : [])))) {
    const ofCondition = cells.filter((cell) => cell.condition === condition);
    const answer = mostCommon(ofCondition);
    if (!matches(answer, base)) conditions[condition] = partOf(entry, answer, base);
  }
  const operations: Record<string, AnswerPart> = {};
  for (const operation of new Set(cells.flatMap((cell) => (cell.operation ? [cell.operation] : [])))) {
    const rest = cells.filter((cell) => cell.operation === operation && (!cell.condition || !conditions[cell.condition]));
    if (rest.length === 0) continue;
    const answer = mostCommon(rest);
    if (!matches(answer, answerFor(entry, base as unknown as AnswerPart, { operation }) as unknown as Answer))
      operations[operation] = partOf(entry, answer, base, operation);
  }
  return withParts(base, operations, conditions);
}

/**
 * The entry from answers seen on several operations and conditions: its own answer and the
 * parts that differ from it; a disagreement when one operation and condition got two answers;
 * not learnt when only a side condition was seen, or when format 2 cannot say the split.
 */
export function decideWithParts(entry: EntryName, values: readonly SeenAnswer[]): PartsDecision {
  const byCell = new Map<string, SeenAnswer[]>();
  for (const value of values) {
    const key = `${value.operation ?? ''}\n${value.condition ?? ''}`;
    byCell.set(key, [...(byCell.get(key) ?? []), value]);
  }
  const cells: Cell[] = [];
  for (const answers of byCell.values()) {
    const merged = mergedAnswers(answers);
    const first = merged[0]!;
    if (merged.length > 1)
      return {
        kind: 'disagreement',
        disagreement: {
          entry,
          at: cellName(first),
          answers: merged.map((answer) => ({ value: JSON.stringify(answer.value), count: answer.count, seen: answer.seen })),
        },
      };
    cells.push({
      ...(first.operation ? { operation: first.operation } : {}),
      ...(first.condition ? { condition: first.condition } : {}),
      answer: first.value as Answer,
      count: first.count,
      seen: first.seen,
    });
  }
  if (cells.every((cell) => cell.condition !== undefined && sideConditions.has(cell.condition)))
    return {
      kind: 'not-learnt',
      reason: `only its condition ${cells[0]!.condition} was seen (${cells[0]!.seen}), not the entry's own situation: its answer is unknown, so the condition's cannot be declared apart from it`,
    };
  // Where both say what was seen with as many parts, the condition is the finer reading: a
  // condition seen on one operation only (an empty jobId, on getJob) is still that condition.
  const candidates = [conditionsFirst(entry, cells), operationsFirst(entry, cells)].filter((candidate) =>
    cells.every((cell) => matches(cell.answer, expectedFor(entry, candidate.value, cell))),
  );
  if (candidates.length === 0) {
    const split = cells.map((cell) => `${cellName(cell)}: ${JSON.stringify(cell.answer)} (${cell.seen})`).join('; ');
    return {
      kind: 'not-learnt',
      reason: 'its answers differ by operation and by condition together, which format 2 cannot declare (the end of the file says how)',
      notExpressible: `${entry} answered each operation and condition its own way, beyond what one answer per operation and one per condition can say: ${split}`,
    };
  }
  const chosen = candidates.sort((a, b) => a.parts - b.parts)[0]!.value;
  return { kind: 'learnt', value: chosen, comments: commentsOf(chosen, cells) };
}

/** Per answer declared (the entry's own, each part), how many requests got it and the first one. */
function commentsOf(value: Record<string, unknown>, cells: readonly Cell[]): string[] {
  const lines = new Map<string, { count: number; seen: string }>();
  for (const cell of cells) {
    const { operations, conditions } = value as { operations?: Record<string, unknown>; conditions?: Record<string, unknown> };
    const at =
      cell.condition && conditions?.[cell.condition]
        ? `conditions.${cell.condition}: `
        : cell.operation && operations?.[cell.operation]
          ? `operations.${cell.operation}: `
          : '';
    const kept = lines.get(at) ?? { count: 0, seen: cell.seen };
    kept.count += cell.count;
    lines.set(at, kept);
  }
  return [...lines.entries()].map(([at, line]) => `${at}seen ${line.count}×: ${line.seen}`);
}
