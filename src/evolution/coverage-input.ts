/**
 * @module evolution/coverage-input
 * A consumer coverage document as `diff --coverage` reads it: what `mock --coverage-report
 * json=FILE` writes, what `control.coverage()` returns (written to a file by an MSW suite), or
 * the body of `GET /__mock/coverage`. Only the behaviours are read. The file is untrusted
 * input: its size, the number of behaviours and every text in it are bounded, and anything else
 * is refused with a message that says what was expected.
 */

export interface CoveredBehaviour {
  readonly id: string;
  readonly operationId: string | undefined;
  readonly covered: boolean;
  readonly count: number;
}

export interface CoverageInput {
  readonly behaviours: readonly CoveredBehaviour[];
  readonly covered: number;
  readonly total: number;
}

/** Refused coverage input; the message says what is wrong and what was expected. */
export class CoverageInputError extends Error {
  override readonly name = 'CoverageInputError';
}

/** Bounds far above the mock's catalogue (about 50 behaviours, a few kB). */
export const coverageInputLimits = { maxChars: 4 * 1024 * 1024, maxBehaviours: 10_000, maxIdLength: 200 } as const;

const expected =
  'expected the JSON coverage document the mock writes (`mock --coverage-report json=FILE`, or control.coverage() written with JSON.stringify): { "behaviours": [{ "id", "operationId", "covered", "count" }, ...] }';

export function parseCoverageInput(text: string): CoverageInput {
  if (text.length > coverageInputLimits.maxChars)
    throw new CoverageInputError(`it is larger than ${coverageInputLimits.maxChars} characters; ${expected}`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new CoverageInputError(`it is not JSON (${(error as Error).message.slice(0, 200)}); ${expected}`);
  }
  const list =
    parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>).behaviours : undefined;
  if (!Array.isArray(list)) throw new CoverageInputError(`it has no "behaviours" list; ${expected}`);
  if (list.length > coverageInputLimits.maxBehaviours)
    throw new CoverageInputError(
      `it lists ${list.length} behaviours, more than the ${coverageInputLimits.maxBehaviours} a coverage document can hold`,
    );
  const behaviours = list.map((entry, index) => behaviourAt(entry, index));
  const covered = behaviours.filter((behaviour) => behaviour.covered).length;
  return { behaviours, covered, total: behaviours.length };
}

function behaviourAt(entry: unknown, index: number): CoveredBehaviour {
  const where = `behaviours[${index}]`;
  if (entry === null || typeof entry !== 'object' || Array.isArray(entry))
    throw new CoverageInputError(`${where} is not an object; ${expected}`);
  const { id, operationId, covered, count } = entry as Record<string, unknown>;
  if (typeof id !== 'string' || id.length === 0 || id.length > coverageInputLimits.maxIdLength)
    throw new CoverageInputError(`${where}.id must be a text of 1 to ${coverageInputLimits.maxIdLength} characters`);
  if (typeof covered !== 'boolean') throw new CoverageInputError(`${where}.covered must be true or false`);
  if (count !== undefined && !(typeof count === 'number' && Number.isSafeInteger(count) && count >= 0))
    throw new CoverageInputError(`${where}.count must be a whole number of answers`);
  if (operationId !== undefined && (typeof operationId !== 'string' || operationId.length > coverageInputLimits.maxIdLength))
    throw new CoverageInputError(`${where}.operationId must be a text of at most ${coverageInputLimits.maxIdLength} characters`);
  return { id, operationId, covered, count: typeof count === 'number' ? count : covered ? 1 : 0 };
}
