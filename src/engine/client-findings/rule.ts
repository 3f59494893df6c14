/**
 * @module engine/client-findings/rule
 * The shape of a client rule: a name (the finding's `rule`, a heading of
 * docs/client-findings.md), a one-line summary, and a factory for the rule's own bounded
 * memory, which sees each observation in order and says when the client did the thing the rule
 * is about.
 */
import type { Observation } from '../observation.js';

/** What a rule says about one request. */
export interface RuleHit {
  /** Why this request hurts against the real service, quoting only bounded values. */
  readonly message: string;
}

export interface ClientRule {
  readonly name: string;
  readonly summary: string;
  /** A fresh judge for this rule: it keeps what it needs between requests, bounded. */
  create(): (observation: Observation) => RuleHit | undefined;
}

/** Most keys (caller and job, caller and operation) one rule remembers. */
export const rememberedKeys = 1000;
