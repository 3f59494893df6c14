/**
 * @module engine/session-reports
 * Coverage and pact of every session of one engine (docs/assumptions.md A-60): what the mock
 * writes at exit (`--coverage-report`, `--pact-out`) covers all the traffic it answered, not the
 * default session's alone. Coverage is the union of the sessions' (a behaviour is covered when
 * any session saw it, its count the sum), with a breakdown per session; the pact holds one
 * interaction per behaviour any session showed, naming the sessions that showed it. A session
 * that ends before exit (evicted or idle) is folded in as it ends: the union and the pact keep
 * it whole, in bounded memory (a fixed catalogue of behaviours, the pact recorder's caps), and
 * its breakdown row is kept up to `maxListed`, the rest counted.
 */
import type { ClientFinding } from './client-findings/judge.js';
import type { ConsumerReport } from './consumer-watch.js';
import type { MockControl } from './control-surface.js';
import type { BehaviourCoverage } from './coverage.js';
import type { PactParties, PactSynchronousHttp, PactV4 } from './pact/index.js';
import { pactRecordLimits } from './pact/index.js';

/** One session's part of the report of all sessions. */
export interface SessionCoverage {
  readonly name: string;
  /** `live` at the time of the report, or how it ended before: evicted (the session limit) or expired (idle). */
  readonly state: 'live' | 'evicted' | 'expired';
  readonly covered: number;
  /** The ids of the behaviours it saw. */
  readonly behaviours: readonly string[];
  readonly clientFindings: readonly { readonly rule: string; readonly count: number }[];
}

/** The coverage document of every session: the union, and the sessions it covers. */
export interface AllSessionsCoverage extends ConsumerReport {
  readonly sessions: {
    /** Sessions covered: the live ones (the default one among them) and those ended before. */
    readonly count: number;
    /** Of those, sessions that ended before the report (evicted or expired): folded in. */
    readonly ended: number;
    /** Ended sessions counted in the union but not listed in `breakdown` (past its bound). */
    readonly notListed: number;
    readonly breakdown: readonly SessionCoverage[];
  };
}

/** What the pact's metadata says of the sessions it covers. */
export interface PactSessions {
  readonly count: number;
  readonly ended: number;
}

/** How many sessions an interaction's comment names before "and N more". */
const namedSessions = 10;

interface FoldedInteraction {
  readonly interaction: PactSynchronousHttp;
  readonly sessions: string[];
  sessionCount: number;
}

/** A running union of sessions' coverage and pacts. */
class Union {
  readonly counts = new Map<string, BehaviourCoverage>();
  readonly findings = new Map<string, ClientFinding>();
  readonly interactions = new Map<string, FoldedInteraction>();
  breakdown: SessionCoverage[] = [];
  sessions = 0;
  ended = 0;
  notListed = 0;
  leftOut = 0;
  pactBytes = 0;

  constructor(private readonly maxListed: number) {}

  clone(): Union {
    const copy = new Union(this.maxListed);
    for (const [id, behaviour] of this.counts) copy.counts.set(id, behaviour);
    for (const [rule, finding] of this.findings) copy.findings.set(rule, finding);
    for (const [key, folded] of this.interactions) copy.interactions.set(key, { ...folded, sessions: [...folded.sessions] });
    copy.breakdown = [...this.breakdown];
    copy.sessions = this.sessions;
    copy.ended = this.ended;
    copy.notListed = this.notListed;
    copy.leftOut = this.leftOut;
    copy.pactBytes = this.pactBytes;
    return copy;
  }

  fold(options: { name: string; state: SessionCoverage['state']; report: ConsumerReport; pact: PactV4 }): void {
    const { name, report, pact } = options;
    this.sessions += 1;
    if (options.state !== 'live') this.ended += 1;
    for (const behaviour of report.behaviours) {
      const held = this.counts.get(behaviour.id);
      this.counts.set(
        behaviour.id,
        held ? { ...held, count: held.count + behaviour.count, covered: held.covered || behaviour.covered } : behaviour,
      );
    }
    for (const finding of report.clientFindings) {
      const held = this.findings.get(finding.rule);
      this.findings.set(finding.rule, held ? { ...held, count: held.count + finding.count } : finding);
    }
    const row: SessionCoverage = {
      name,
      state: options.state,
      covered: report.covered,
      behaviours: report.behaviours.filter((behaviour) => behaviour.covered).map((behaviour) => behaviour.id),
      clientFindings: report.clientFindings.map((finding) => ({ rule: finding.rule, count: finding.count })),
    };
    this.breakdown.push(row);
    if (this.breakdown.length > this.maxListed) {
      // The oldest ended session's row goes; its counts stay in the union.
      const index = this.breakdown.findIndex((listed) => listed.state !== 'live');
      this.breakdown.splice(index < 0 ? 0 : index, 1);
      this.notListed += 1;
    }
    this.leftOut += pact.metadata['evidence-harness'].leftOut;
    for (const interaction of pact.interactions) {
      const held = this.interactions.get(interaction.key);
      if (held) {
        held.sessionCount += 1;
        if (held.sessions.length < namedSessions) held.sessions.push(name);
        continue;
      }
      const bytes = JSON.stringify(interaction).length;
      if (this.interactions.size >= pactRecordLimits.maxInteractions || this.pactBytes + bytes > pactRecordLimits.maxTotalBytes) {
        this.leftOut += 1;
        continue;
      }
      this.pactBytes += bytes;
      this.interactions.set(interaction.key, { interaction, sessions: [name], sessionCount: 1 });
    }
  }
}

/** A session's report, folded as it ends or when all sessions are reported. */
function foldSession(union: Union, control: MockControl, state: SessionCoverage['state']): void {
  union.fold({ name: control.sessionName, state, report: control.coverage(), pact: control.pact() });
}

export class SessionReports {
  private readonly ended: Union;

  constructor(options: { readonly maxListed?: number } = {}) {
    this.ended = new Union(options.maxListed ?? 256);
  }

  /**
   * Folds in a session that is ending, so the reports at exit still hold it: evicted or expired
   * before exit, or closed with the engine (a server that stops closes its engine before `mock`
   * writes its reports; such a session was live to the end).
   */
  sessionEnded(control: MockControl, how: 'evicted' | 'expired' | 'closed'): void {
    try {
      foldSession(this.ended, control, how === 'closed' ? 'live' : how);
    } catch {
      // A report is an aid: a failure in it must never stop a session from ending.
    }
  }

  /** The coverage of every session: `live` (the default one first), and those that ended before. */
  coverage(live: readonly MockControl[]): AllSessionsCoverage {
    const union = this.with(live);
    const behaviours = [...union.counts.values()].map(({ id, operationId, description, covered, count }) => ({
      id,
      operationId,
      description,
      covered,
      count,
    }));
    return {
      behaviours,
      covered: behaviours.filter((behaviour) => behaviour.covered).length,
      total: behaviours.length,
      clientFindings: [...union.findings.values()],
      sessions: {
        count: union.sessions,
        ended: union.ended,
        notListed: union.notListed,
        // The default session first, then in the order they were folded in.
        breakdown: [...union.breakdown].sort((left, right) => Number(right.name === 'default') - Number(left.name === 'default')),
      },
    };
  }

  /** One pact of every session's traffic: one interaction per behaviour, its comments naming the sessions that showed it. */
  pact(live: readonly MockControl[], parties: Partial<PactParties> | undefined): PactV4 {
    const union = this.with(live);
    // The default session's pact gives the document's frame (parties checked, contract version).
    const frame = live[0]!.pact(parties);
    const interactions = [...union.interactions.values()]
      .map(({ interaction, sessions, sessionCount }): PactSynchronousHttp => {
        const more = sessionCount > sessions.length ? ` and ${sessionCount - sessions.length} more` : '';
        return {
          ...interaction,
          comments: { text: [`seen in session${sessionCount === 1 ? '' : 's'} ${sessions.join(', ')}${more}`], testname: sessions[0]! },
        };
      })
      .sort((left, right) => (left.description < right.description ? -1 : left.description > right.description ? 1 : 0));
    return {
      ...frame,
      interactions,
      metadata: {
        ...frame.metadata,
        'evidence-harness': {
          ...frame.metadata['evidence-harness'],
          leftOut: union.leftOut,
          sessions: { count: union.sessions, ended: union.ended },
        },
      },
    };
  }

  private with(live: readonly MockControl[]): Union {
    const union = this.ended.clone();
    for (const control of live) foldSession(union, control, 'live');
    return union;
  }
}
