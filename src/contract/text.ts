/**
 * @module contract/text
 * Strings bounded in Unicode code points. zod's own `.min()`/`.max()` count UTF-16 code units,
 * while JSON Schema (and so the OpenAPI document, ajv, Prism and every conformance check)
 * counts code points: a 100-emoji operationId is valid to the spec and would be 200 long to
 * `.max()`. These helpers enforce the spec's meaning and still publish minLength/maxLength, so
 * `z.toJSONSchema()` shows the same bounds the spec does.
 */
import * as z from 'zod';

/** Counts Unicode code points; a lone surrogate counts as one, as in JSON Schema validators. */
export function codePointLength(value: string): number {
  let count = 0;
  for (let index = 0; index < value.length; index += 1) {
    const unit = value.charCodeAt(index);
    if (unit >= 0xd800 && unit <= 0xdbff && index + 1 < value.length) {
      const next = value.charCodeAt(index + 1);
      if (next >= 0xdc00 && next <= 0xdfff) index += 1;
    }
    count += 1;
  }
  return count;
}

export interface TextBounds {
  readonly min?: number;
  readonly max: number;
}

/**
 * A zod string bounded in code points. Violations are reported with zod's own `too_small` and
 * `too_big` issue codes, so callers can tell "over a maximum" (413 on createEvaluation) from
 * every other invalid input (400) without knowing how the bound is enforced.
 */
export function boundedText(bounds: TextBounds) {
  const { min, max } = bounds;
  return z
    .string()
    .check((ctx) => {
      // .length is an upper bound of the code-point count, so most values skip the scan.
      const cheap = ctx.value.length;
      const length = cheap <= max && (min === undefined || cheap >= 2 * min) ? cheap : codePointLength(ctx.value);
      if (length > max) {
        ctx.issues.push({
          code: 'too_big',
          origin: 'string',
          maximum: max,
          inclusive: true,
          input: ctx.value,
          message: `must be at most ${max} characters long`,
        });
      } else if (min !== undefined && length < min) {
        ctx.issues.push({
          code: 'too_small',
          origin: 'string',
          minimum: min,
          inclusive: true,
          input: ctx.value,
          message: min === 1 ? 'must not be empty' : `must be at least ${min} characters long`,
        });
      }
    })
    .meta(min === undefined ? { maxLength: max } : { minLength: min, maxLength: max });
}
