/**
 * @module evolution/canonical
 * One text per value, for deciding whether two parts of the documents are the same: object keys
 * sorted, local `$ref`s followed (so a renamed component compares equal to itself), a `$ref`
 * back into a schema being written replaced by its depth (so recursive schemas end), every node
 * paid for from the comparison's budget.
 */
import type { StepBudget } from './limits.js';
import { resolvePointer } from './pointer.js';

export function canonical(options: { value: unknown; document: unknown; budget: StepBudget }): string {
  const { document, budget } = options;
  const open: unknown[] = [];
  const write = (value: unknown): string => {
    budget.step('canonical form');
    if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
    const cycle = open.indexOf(value);
    if (cycle >= 0) return `{"$cycle":${cycle}}`;
    open.push(value);
    try {
      if (Array.isArray(value)) return `[${value.map(write).join(',')}]`;
      const record = value as Record<string, unknown>;
      if (typeof record.$ref === 'string') {
        const target = resolvePointer(document, record.$ref);
        if (target && target.value !== value) {
          const { $ref: _ref, ...siblings } = record;
          const merged = Object.keys(siblings).length > 0 ? { resolved: target.value, siblings } : target.value;
          // The target goes through `write` too, so a ref back to an open schema ends the walk.
          return write(merged);
        }
      }
      const keys = Object.keys(record).sort();
      return `{${keys.map((key) => `${JSON.stringify(key)}:${write(record[key])}`).join(',')}}`;
    } finally {
      open.pop();
    }
  };
  return write(options.value);
}
