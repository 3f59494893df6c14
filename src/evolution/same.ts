/**
 * @module evolution/same
 * Whether a part of OLD and a part of NEW say the same, by their canonical forms (keys sorted,
 * $refs followed), paying from the comparison's budget.
 */
import { canonical } from './canonical.js';
import type { SiteContext } from './rule.js';

export function same(context: SiteContext, oldValue: unknown, newValue: unknown): boolean {
  if (oldValue === newValue && (oldValue === null || typeof oldValue !== 'object')) return true;
  if (oldValue === undefined || newValue === undefined) return false;
  const { budget } = context;
  return (
    canonical({ value: oldValue, document: context.documents.old, budget }) ===
    canonical({ value: newValue, document: context.documents.new, budget })
  );
}

/** The canonical text of a value of OLD (`side` 'old') or NEW. */
export function canonicalOf(context: SiteContext, side: 'old' | 'new', value: unknown): string {
  return canonical({ value, document: context.documents[side], budget: context.budget });
}
