/**
 * @module evolution/render/groups
 * How every renderer orders and groups changes. A schema used by several operations (Error,
 * Job) changes once in the document but at each use; those uses are one group, shown once with
 * the others named. Groups come in the order a person acts on them: what breaks clients the
 * tests exercise, what breaks clients they do not, what breaks only servers, what breaks no one.
 */
import type { Change, DiffReport } from '../types.js';

export interface ChangeGroup {
  readonly first: Change;
  readonly all: readonly Change[];
}

export interface Section {
  readonly title: string;
  readonly groups: readonly ChangeGroup[];
}

function groupsOf(changes: readonly Change[]): ChangeGroup[] {
  const groups = new Map<string, Change[]>();
  changes.forEach((change, index) => {
    const key = change.definedAt
      ? `${change.rule}|${change.definedAt}|${change.breaks.clients}|${change.breaks.servers}|${change.impact?.level ?? ''}`
      : `#${index}`;
    groups.set(key, [...(groups.get(key) ?? []), change]);
  });
  return [...groups.values()].map((all) => ({ first: all[0]!, all }));
}

export function sectionsOf(report: DiffReport): Section[] {
  const hasCoverage = report.coverage !== undefined;
  const pick = (test: (change: Change) => boolean) => groupsOf(report.changes.filter(test));
  const sections: Section[] = hasCoverage
    ? [
        { title: 'Breaks clients, exercised by the tests', groups: pick((c) => c.impact?.level === 'exercised') },
        { title: 'Breaks clients, not exercised by the tests', groups: pick((c) => c.impact?.level === 'unexercised') },
      ]
    : [{ title: 'Breaks clients', groups: pick((c) => c.breaks.clients) }];
  sections.push(
    { title: 'Breaks servers only', groups: pick((c) => c.breaks.servers && !c.breaks.clients) },
    { title: 'Compatible', groups: pick((c) => !c.breaks.clients && !c.breaks.servers) },
  );
  return sections.filter((section) => section.groups.length > 0);
}

/** "clients, servers", "clients", "servers" or "no one". */
export function whomText(change: Change): string {
  const whom = [change.breaks.clients ? 'clients' : '', change.breaks.servers ? 'servers' : ''].filter(Boolean).join(', ');
  return whom || 'no one';
}

/** The other uses of a group, named by operation and part. */
export function otherUses(group: ChangeGroup): string[] {
  return group.all.slice(1).map((change) => {
    const operation = change.operation?.operationId ?? 'the document';
    const part =
      change.subject.kind === 'response-body' || change.subject.kind === 'status' || change.subject.kind === 'response-header'
        ? ` ${change.subject.status}`
        : change.subject.kind === 'request'
          ? ' request'
          : '';
    return `${operation}${part}`;
  });
}

export function headline(report: DiffReport): string {
  const { counts } = report;
  if (counts.total === 0) return 'No changes.';
  const parts = [
    `${counts.total} change${counts.total === 1 ? '' : 's'}`,
    `${counts.breaksClients} break${counts.breaksClients === 1 ? 's' : ''} clients${counts.exercised !== undefined ? ` (${counts.exercised} exercised by the tests)` : ''}`,
    `${counts.breaksServers} break${counts.breaksServers === 1 ? 's' : ''} servers`,
    `${counts.compatible} compatible`,
  ];
  return `${parts.join(', ')}.${report.truncated ? ` Only the first ${report.changes.length} are listed.` : ''}`;
}
