/**
 * @module evolution/rules/operation-rules
 * Rules on one operation present in both documents: its operationId and path parameter names,
 * its security, which parameters it takes, whether it has a request body, and which response
 * statuses it documents. What the parameters, bodies and responses contain is compared at their
 * own sites.
 */
import { breaksBoth, breaksClients, breaksServers, compatible, runnerCanMutatePattern, unreadSecurityAdvice } from '../classify.js';
import { deref } from '../deref.js';
import { operationParameters, pathShape } from '../operations.js';
import { type Finding, type Rule, record, type SiteContext, shown } from '../rule.js';
import { same } from '../same.js';

export const operationIdChanged: Rule = {
  name: 'operation-id-changed',
  sites: ['operation'],
  description: 'The operationId changed at the same method and path; compatible on the wire.',
  check({ operations }) {
    if (!operations || operations.old.ref.operationId === operations.new.ref.operationId) return [];
    return [
      {
        fact: `operationId changed to ${shown(operations.new.ref.operationId)}`,
        breaks: compatible,
        advice:
          'No request or answer changes; clients generated from the document get a renamed method, and coverage ids keep the old name.',
        segments: ['operationId'],
      },
    ];
  },
};

export const pathParameterRenamed: Rule = {
  name: 'path-parameter-renamed',
  sites: ['operation'],
  description: 'A path template parameter was renamed ({jobId} → {id}); the URL is the same, compatible.',
  check({ operations }) {
    if (!operations || operations.old.ref.path === operations.new.ref.path) return [];
    // A moved operation is operation-moved's to report.
    if (pathShape(operations.old.ref.path) !== pathShape(operations.new.ref.path)) return [];
    return [{ fact: `path template is now ${operations.new.ref.path}, the same URLs with other parameter names`, breaks: compatible }];
  },
};

export const securityChanged: Rule = {
  name: 'security-changed',
  sites: ['operation'],
  description:
    'The security requirements in force for the operation changed; not reasoned about, classified as breaking clients; the runner reads no security requirement, so it breaks no server.',
  check(context) {
    const effective = (side: 'old' | 'new') => context[side].value.security ?? context.documents[side].security ?? null;
    if (same(context, effective('old'), effective('new'))) return [];
    return [
      {
        fact: 'its security requirements changed (classified as breaking clients: authentication is not compared further; review it)',
        breaks: breaksClients,
        advice: unreadSecurityAdvice,
        segments: ['security'],
      },
    ];
  },
};

function parameterChanges(context: SiteContext, kind: 'required-added' | 'optional-added' | 'removed'): Finding[] {
  if (!context.operations) return [];
  const before = operationParameters(context.documents.old, context.operations.old);
  const after = operationParameters(context.documents.new, context.operations.new);
  const beforeKeys = new Set(before.map((parameter) => parameter.key));
  const afterKeys = new Set(after.map((parameter) => parameter.key));
  if (kind === 'removed') {
    return before
      .filter((parameter) => !afterKeys.has(parameter.key))
      .map((parameter) => {
        const required = parameter.side.value.required === true;
        return {
          fact: `no longer takes the ${required ? 'required' : 'optional'} ${parameter.label}`,
          // Clients still send it and NEW no longer promises to act on it; OLD servers demanded it if required.
          breaks: { clients: true, servers: required },
          at: 'old' as const,
          segments: pointerTailFrom(context.old.pointer, parameter.side.pointer),
          subject: { kind: 'request' as const },
        };
      });
  }
  const required = kind === 'required-added';
  return after
    .filter((parameter) => !beforeKeys.has(parameter.key) && (parameter.side.value.required === true) === required)
    .map((parameter): Finding => {
      // OLD servers ignore a parameter they do not know; required, OLD clients do not send it.
      // Servers break when the runner sends what an ignoring server gets wrong (A-46).
      const seen = runnerSeesIgnoredParameter(parameter.side.value, required);
      return {
        fact: `takes a new ${required ? 'required' : 'optional'} ${parameter.label}${seen ? '' : '; the runner sends nothing an OLD server, which ignores it, would answer wrongly'}`,
        breaks: { clients: required, servers: seen },
        ...(seen
          ? {}
          : {
              advice: `${required ? 'Clients written against OLD do not send it: update them; ' : ''}\`conformance --spec NEW\` cannot fail a server implementing OLD for it, but servers should act on it before clients rely on it.`,
            }),
        segments: pointerTailFrom(context.new.pointer, parameter.side.pointer),
        subject: { kind: 'request' as const },
      };
    });
}

/**
 * Whether the runner fails a server that ignores a new parameter: a required header is sent
 * missing (missingHeaderProbe), an optional one with a value its constraints refuse (the
 * negative probe); query and cookie parameters are never varied.
 */
function runnerSeesIgnoredParameter(parameter: Record<string, any>, required: boolean): boolean {
  if (parameter.in !== 'header') return false;
  if (required) return true;
  const schema = record(parameter.schema) ?? {};
  return (
    typeof schema.maxLength === 'number' ||
    (typeof schema.minLength === 'number' && schema.minLength > 0) ||
    Array.isArray(schema.enum) ||
    runnerCanMutatePattern(schema.pattern) ||
    schema.format === 'uri'
  );
}

/** Segments of `pointer` below `base` (both on one document), or none when it is elsewhere (a path item's parameter). */
function pointerTailFrom(base: string, pointer: string): string[] {
  if (!pointer.startsWith(`${base}/`)) return [];
  return pointer
    .slice(base.length + 1)
    .split('/')
    .map((segment) => segment.replaceAll('~1', '/').replaceAll('~0', '~'));
}

export const requiredParameterAdded: Rule = {
  name: 'required-parameter-added',
  sites: ['operation'],
  description:
    'A required parameter was added: OLD clients do not send it (breaks clients); OLD servers ignore it, which breaks them for a header (the runner sends a request without it), not for a query or cookie parameter the runner never varies.',
  check: (context) => parameterChanges(context, 'required-added'),
};

export const optionalParameterAdded: Rule = {
  name: 'optional-parameter-added',
  sites: ['operation'],
  description:
    'An optional parameter was added: OLD servers ignore it, which breaks them for a header the runner sends a refused value of (a length, enum, pattern or uri constraint); otherwise compatible, with a warning.',
  check: (context) => parameterChanges(context, 'optional-added'),
};

export const parameterRemoved: Rule = {
  name: 'parameter-removed',
  sites: ['operation'],
  description:
    'A parameter was removed: clients still send it and NEW does not act on it (breaks clients); OLD servers required it if it was required.',
  check: (context) => parameterChanges(context, 'removed'),
};

export const requestBodyAdded: Rule = {
  name: 'request-body-added',
  sites: ['operation'],
  description:
    'A request body was added: OLD servers ignore it (breaks servers); if required, OLD clients do not send it (breaks clients).',
  check({ old, new: next, documents }) {
    if (old.value.requestBody !== undefined || !record(next.value.requestBody)) return [];
    const required = deref(documents.new, next.value.requestBody, '').value.required === true;
    return [
      {
        fact: `takes a new ${required ? 'required' : 'optional'} request body`,
        breaks: required ? breaksBoth : breaksServers,
        segments: ['requestBody'],
        subject: { kind: 'request' },
      },
    ];
  },
};

export const requestBodyRemoved: Rule = {
  name: 'request-body-removed',
  sites: ['operation'],
  description:
    'The request body was removed: clients still send one (breaks clients); OLD servers that required it refuse NEW clients (breaks servers).',
  check({ old, new: next, documents }) {
    if (!record(old.value.requestBody) || next.value.requestBody !== undefined) return [];
    const required = deref(documents.old, old.value.requestBody, '').value.required === true;
    return [
      {
        fact: 'no longer takes a request body',
        breaks: { clients: true, servers: required },
        at: 'old',
        segments: ['requestBody'],
        subject: { kind: 'request' },
      },
    ];
  },
};

const isSuccess = (status: string) => /^2/.test(status);

export const responseStatusAdded: Rule = {
  name: 'response-status-added',
  sites: ['operation'],
  description: 'A response status was documented: clients written against OLD may get an answer they were not written for; breaks clients.',
  check({ old, new: next }) {
    const before = record(old.value.responses) ?? {};
    const hadDefault = Object.hasOwn(before, 'default');
    return Object.keys(record(next.value.responses) ?? {})
      .filter((status) => status !== 'default' && !Object.hasOwn(before, status))
      .map((status) => ({
        fact: `may now answer ${status}${hadDefault ? ' (OLD left it to `default`; clients that act on the status were not written for it)' : ''}`,
        breaks: breaksClients,
        advice: `Make clients handle ${status} before servers send it.`,
        segments: ['responses', status],
        subject: { kind: 'status' as const, status },
      }));
  },
};

export const responseStatusRemoved: Rule = {
  name: 'response-status-removed',
  sites: ['operation'],
  description:
    'A response status was removed: OLD servers still send it (breaks servers unless NEW has `default`); a success status removed breaks clients.',
  check({ old, new: next }) {
    const after = record(next.value.responses) ?? {};
    const hasDefault = Object.hasOwn(after, 'default');
    return Object.keys(record(old.value.responses) ?? {})
      .filter((status) => status !== 'default' && !Object.hasOwn(after, status))
      .map((status) => ({
        fact: `no longer answers ${status}${hasDefault ? ' (NEW leaves it to `default`)' : ''}${isSuccess(status) ? '; clients waiting for this success get another answer' : ''}`,
        breaks: { clients: isSuccess(status), servers: true },
        at: 'old' as const,
        segments: ['responses', status],
        subject: { kind: 'status' as const, status },
      }));
  },
};

export const responseDefaultAdded: Rule = {
  name: 'response-default-added',
  sites: ['operation'],
  description: 'A `default` response was added: any undocumented status may now come; breaks clients.',
  check({ old, new: next }) {
    if (Object.hasOwn(record(old.value.responses) ?? {}, 'default') || !Object.hasOwn(record(next.value.responses) ?? {}, 'default'))
      return [];
    return [
      {
        fact: 'may now answer any other status (`default`)',
        breaks: breaksClients,
        segments: ['responses', 'default'],
        subject: { kind: 'status', status: 'default' },
      },
    ];
  },
};

export const responseDefaultRemoved: Rule = {
  name: 'response-default-removed',
  sites: ['operation'],
  description: 'The `default` response was removed: OLD servers answering undocumented statuses no longer conform; breaks servers.',
  check({ old, new: next }) {
    if (!Object.hasOwn(record(old.value.responses) ?? {}, 'default') || Object.hasOwn(record(next.value.responses) ?? {}, 'default'))
      return [];
    return [
      {
        fact: 'no longer documents a `default` response',
        breaks: breaksServers,
        at: 'old',
        segments: ['responses', 'default'],
        subject: { kind: 'status', status: 'default' },
      },
    ];
  },
};
