/**
 * @module evolution/rules/document-rules
 * Rules on the whole document: its OpenAPI and API versions, its servers (the base path every
 * operation's URL starts with), its security schemes, its components, and which operations
 * exist: added, removed, or moved to another method or path under the same operationId.
 */
import { breaksBoth, breaksClients, breaksServers, compatible, unreadSecurityAdvice } from '../classify.js';
import { valueCount } from '../limits.js';
import { indexOperations, matchOperations } from '../operations.js';
import { type Finding, type Rule, record, type SiteContext } from '../rule.js';
import { canonicalOf, same } from '../same.js';

export const openapiVersionChanged: Rule = {
  name: 'openapi-version-changed',
  sites: ['document'],
  description: 'The OpenAPI version the document declares changed (both are 3.1); compatible.',
  check: ({ old, new: next }) =>
    old.value.openapi === next.value.openapi
      ? []
      : [
          {
            fact: `declares OpenAPI ${String(next.value.openapi)} instead of ${String(old.value.openapi)}`,
            breaks: compatible,
            segments: ['openapi'],
          },
        ],
};

export const apiVersionChanged: Rule = {
  name: 'api-version-changed',
  sites: ['document'],
  description: 'info.version changed; compatible by itself (the other changes say what moved).',
  check({ old, new: next }) {
    const before = record(old.value.info)?.version;
    const after = record(next.value.info)?.version;
    return before === after
      ? []
      : [{ fact: `info.version changed from ${String(before)} to ${String(after)}`, breaks: compatible, segments: ['info', 'version'] }];
  },
};

/** The path part of each server URL, its variables at their defaults: what every operation's URL starts with. */
function basePaths(document: Record<string, any>): string[] {
  const servers = Array.isArray(document.servers) && document.servers.length > 0 ? document.servers : [{ url: '/' }];
  const paths = servers.map((server: unknown) => {
    const entry = record(server) ?? {};
    const variables = record(entry.variables) ?? {};
    const url = String(entry.url ?? '/').replace(/\{([^}]*)\}/g, (_, name: string) => String(record(variables[name])?.default ?? ''));
    let path: string;
    try {
      path = new URL(url, 'http://base.invalid').pathname;
    } catch {
      path = url;
    }
    return path.replace(/\/+$/, '') || '/';
  });
  return [...new Set(paths)].sort();
}

export const basePathChanged: Rule = {
  name: 'base-path-changed',
  sites: ['document'],
  description:
    "The servers' base path changed: every operation's URL moved; breaks clients (servers too in practice, but `conformance` sends to the base URL it is given, so the runner cannot fail an OLD server for it).",
  check({ old, new: next }) {
    const before = basePaths(old.value);
    const after = basePaths(next.value);
    if (before.join(' ') === after.join(' ')) return [];
    return [
      {
        fact: `the servers' base path changed from ${before.join(', ')} to ${after.join(', ')}, so every operation's URL moved`,
        // The runner appends the document's paths to the --base-url it is given and never reads
        // `servers`: an OLD server passes `conformance --spec NEW` at its own base URL.
        breaks: breaksClients,
        advice:
          "Clients written against OLD call URLs NEW does not serve: move them, or serve both base paths for a while. `conformance --spec NEW` sends to the base URL it is given, so it cannot fail a server implementing OLD for this; but that server does not answer at NEW's URLs: serve NEW's base path before clients use it.",
        segments: ['servers'],
      },
    ];
  },
};

export const serverChanged: Rule = {
  name: 'server-changed',
  sites: ['document'],
  description: 'The servers list changed without moving the base path (hosts, variables, descriptions); compatible.',
  check(context) {
    const { old, new: next } = context;
    if (same(context, old.value.servers ?? null, next.value.servers ?? null)) return [];
    if (basePaths(old.value).join(' ') !== basePaths(next.value).join(' ')) return [];
    return [{ fact: 'the servers list changed (hosts or variables), not the base path', breaks: compatible, segments: ['servers'] }];
  },
};

export const securitySchemeChanged: Rule = {
  name: 'security-scheme-changed',
  sites: ['document'],
  description:
    'components.securitySchemes changed; the diff does not reason about authentication, so it is classified as breaking clients; the runner reads no security scheme, so it breaks no server.',
  check(context) {
    const scheme = (side: 'old' | 'new') => record(context[side].value.components)?.securitySchemes ?? null;
    if (same(context, scheme('old'), scheme('new'))) return [];
    return [
      {
        fact: 'the security schemes changed (classified as breaking clients: how callers authenticate is not compared further; review it)',
        breaks: breaksClients,
        advice: unreadSecurityAdvice,
        segments: ['components', 'securitySchemes'],
      },
    ];
  },
};

const componentKinds = ['schemas', 'responses', 'parameters', 'requestBodies', 'headers', 'examples', 'links', 'callbacks', 'pathItems'];

/** One group's components only OLD or only NEW has, and which of them are the same under another name. */
interface GroupChanges {
  readonly group: string;
  readonly gone: readonly string[];
  readonly fresh: readonly string[];
  readonly renamed: ReadonlyMap<string, string>;
}

/**
 * The three component rules share one matching per comparison: it writes the canonical form of
 * every component only one side has, which for two unrelated documents is all of them, and
 * doing it once per rule tripled the steps a refusal took (issue 32).
 */
const matchedComponents = new WeakMap<object, readonly GroupChanges[]>();

function componentMatching(context: SiteContext): readonly GroupChanges[] {
  const known = matchedComponents.get(context.documents);
  if (known) return known;
  const groups: GroupChanges[] = [];
  for (const group of componentKinds) {
    const before = record(record(context.old.value.components)?.[group]) ?? {};
    const after = record(record(context.new.value.components)?.[group]) ?? {};
    const gone = Object.keys(before).filter((name) => !Object.hasOwn(after, name));
    const fresh = Object.keys(after).filter((name) => !Object.hasOwn(before, name));
    const renamed = new Map<string, string>();
    if (gone.length > 0 && fresh.length > 0) {
      // Every one of them is written out below: two unrelated documents are refused here, not after.
      const { budget } = context;
      const values = [...gone.map((name) => before[name]), ...fresh.map((name) => after[name])];
      budget.ahead(valueCount(values, budget.left + 1), `the components.${group} only one of them has`);
      const freshByForm = new Map(fresh.map((name) => [canonicalOf(context, 'new', after[name]), name]));
      for (const name of gone) {
        const form = canonicalOf(context, 'old', before[name]);
        const partner = freshByForm.get(form);
        if (partner !== undefined) {
          renamed.set(name, partner);
          freshByForm.delete(form);
        }
      }
    }
    groups.push({ group, gone, fresh, renamed });
  }
  matchedComponents.set(context.documents, groups);
  return groups;
}

function componentChanges(context: SiteContext, kind: 'renamed' | 'added' | 'removed'): Finding[] {
  const findings: Finding[] = [];
  for (const { group, gone, fresh, renamed } of componentMatching(context)) {
    const renamedTo = new Set(renamed.values());
    const advice = 'No request or answer changes; code generated from the document (type names) may.';
    if (kind === 'renamed')
      for (const [from, to] of renamed)
        findings.push({
          fact: `components.${group}.${from} is now ${to}, unchanged (every $ref to it resolves to the same)`,
          breaks: compatible,
          advice,
          segments: ['components', group, to],
        });
    if (kind === 'removed')
      for (const name of gone.filter((entry) => !renamed.has(entry)))
        findings.push({
          fact: `components.${group}.${name} was removed (where it was used, the change is reported there)`,
          breaks: compatible,
          advice,
          at: 'old',
          segments: ['components', group, name],
        });
    if (kind === 'added')
      for (const name of fresh.filter((entry) => !renamedTo.has(entry)))
        findings.push({ fact: `components.${group}.${name} was added`, breaks: compatible, advice, segments: ['components', group, name] });
  }
  return findings;
}

export const componentRenamed: Rule = {
  name: 'component-renamed',
  sites: ['document'],
  description: 'A component was renamed or moved with the same content ($refs follow it); compatible on the wire.',
  check: (context) => componentChanges(context, 'renamed'),
};

export const componentAdded: Rule = {
  name: 'component-added',
  sites: ['document'],
  description: 'A component was added; compatible by itself (its uses are compared where they are).',
  check: (context) => componentChanges(context, 'added'),
};

export const componentRemoved: Rule = {
  name: 'component-removed',
  sites: ['document'],
  description: 'A component was removed; compatible by itself (its uses are compared where they were).',
  check: (context) => componentChanges(context, 'removed'),
};

function operations(context: SiteContext) {
  return matchOperations(indexOperations(context.old.value), indexOperations(context.new.value));
}

const label = (operation: { ref: { operationId: string; method: string; path: string } }) =>
  `${operation.ref.operationId} (${operation.ref.method} ${operation.ref.path})`;

export const operationAdded: Rule = {
  name: 'operation-added',
  sites: ['document'],
  description: 'An operation was added: servers implementing OLD do not serve it; no client is broken.',
  check: (context) =>
    operations(context).added.map(
      (operation): Finding => ({
        fact: 'was added',
        where: label(operation),
        breaks: breaksServers,
        advice: 'Servers implementing OLD answer it 404 or 405: implement it before clients call it.',
        operation: operation.ref,
        subject: { kind: 'operation' },
        segments: pointerTail(operation.side.pointer),
      }),
    ),
};

export const operationRemoved: Rule = {
  name: 'operation-removed',
  sites: ['document'],
  description: 'An operation was removed: clients that call it are refused; servers may keep serving it.',
  check: (context) =>
    operations(context).removed.map(
      (operation): Finding => ({
        fact: 'was removed',
        where: label(operation),
        breaks: breaksClients,
        advice:
          'Clients written against OLD that call it will be refused: move them off it first (deprecate it for a version before removing it).',
        operation: operation.ref,
        subject: { kind: 'operation' },
        at: 'old',
        segments: pointerTail(operation.side.pointer),
      }),
    ),
};

export const operationMoved: Rule = {
  name: 'operation-moved',
  sites: ['document'],
  description: 'An operation kept its operationId but moved to another method or path: breaks both.',
  check: (context) =>
    operations(context).moved.map(
      ([before, after]): Finding => ({
        fact: `moved to ${after.ref.method} ${after.ref.path}`,
        where: label(before),
        breaks: breaksBoth,
        advice: 'Clients written against OLD call the old URL and OLD servers serve only it: serve both for a while, then move clients.',
        operation: before.ref,
        subject: { kind: 'operation' },
        segments: pointerTail(after.side.pointer),
      }),
    ),
};

/** A finding's segments are below the site's pointer; the document's pointer is '#'. */
function pointerTail(pointer: string): string[] {
  return pointer
    .replace(/^#\//, '')
    .split('/')
    .map((segment) => segment.replaceAll('~1', '/').replaceAll('~0', '~'));
}
