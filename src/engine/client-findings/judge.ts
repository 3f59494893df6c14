/**
 * @module engine/client-findings/judge
 * Runs every client rule over each observation and gathers what they say into findings: one per
 * rule, with how many requests it concerned and the first as its example. Bounded: at most one
 * finding per rule, and each rule's memory is bounded by the rule itself.
 */
import { type ExampleRequest, exampleOf, type Observation } from '../observation.js';
import { clientRules } from './registry.js';
import type { ClientRule } from './rule.js';

export interface ClientFinding {
  /** The rule's name: a section of docs/client-findings.md. */
  readonly rule: string;
  readonly summary: string;
  /** What the first request it concerned did, and what to do instead. */
  readonly message: string;
  /** How many requests it concerned. */
  readonly count: number;
  readonly example: ExampleRequest;
}

export class ClientJudge {
  private judges: { rule: ClientRule; judge: ReturnType<ClientRule['create']> }[] = [];
  private readonly found = new Map<string, ClientFinding>();

  constructor(private readonly rules: readonly ClientRule[] = clientRules) {
    this.clear();
  }

  observe(observation: Observation): void {
    for (const { rule, judge } of this.judges) {
      const hit = judge(observation);
      if (!hit) continue;
      const before = this.found.get(rule.name);
      this.found.set(
        rule.name,
        before
          ? { ...before, count: before.count + 1 }
          : { rule: rule.name, summary: rule.summary, message: hit.message, count: 1, example: exampleOf(observation) },
      );
    }
  }

  /** The findings, in the registry's order. */
  findings(): ClientFinding[] {
    return this.rules.flatMap((rule) => {
      const finding = this.found.get(rule.name);
      return finding ? [finding] : [];
    });
  }

  /**
   * Forgets what the rules remembered between requests (a reset of the mock emptied its
   * store, and a seeded mock gives the same job ids again) but keeps the findings.
   */
  forgetRequests(): void {
    this.judges = this.rules.map((rule) => ({ rule, judge: rule.create() }));
  }

  /** Forgets the findings and everything the rules remembered. */
  clear(): void {
    this.found.clear();
    this.forgetRequests();
  }
}
