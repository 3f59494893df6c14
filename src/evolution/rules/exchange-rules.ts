/**
 * @module evolution/rules/exchange-rules
 * Rules on the parts of one exchange: a parameter's required-ness and serialization, a request
 * body's required-ness and media types, a response's media types and headers, a response
 * header's required-ness. Their schemas are compared at the schema site.
 */
import { breaksClients, breaksServers, compatible, probedNarrowing, unexercisedWidening, unseenByRunner } from '../classify.js';
import { deref } from '../deref.js';
import { type Finding, type Rule, record, type SiteContext } from '../rule.js';
import { same } from '../same.js';

function becameRequired(context: SiteContext, became: 'required' | 'optional', what: string): Finding[] {
  const before = context.old.value.required === true;
  const after = context.new.value.required === true;
  if (before === after || after !== (became === 'required')) return [];
  return [{ fact: `${what} became ${became}`, effect: became === 'required' ? 'narrows' : 'widens', segments: ['required'] }];
}

export const parameterBecameRequired: Rule = {
  name: 'parameter-became-required',
  sites: ['parameter'],
  description:
    'An optional parameter became required: OLD clients may leave it out (breaks clients); for a header, the runner sends a request without it and requires a refusal (breaks servers too).',
  check(context) {
    const findings = becameRequired(context, 'required', 'the parameter');
    // missingHeaderProbe: a valid request without each required header, which OLD servers accept.
    if (findings.length > 0 && context.new.value.in === 'header')
      return [
        { ...findings[0]!, fact: `${findings[0]!.fact}; the runner sends a request without it`, effect: undefined, ...probedNarrowing },
      ];
    return findings;
  },
};

export const parameterBecameOptional: Rule = {
  name: 'parameter-became-optional',
  sites: ['parameter'],
  description: 'A required parameter became optional: OLD servers refuse requests without it; breaks servers.',
  check: (context) => becameRequired(context, 'optional', 'the parameter'),
};

const serializationKeys = ['style', 'explode', 'allowReserved', 'allowEmptyValue', 'content'];

export const parameterSerializationChanged: Rule = {
  name: 'parameter-serialization-changed',
  sites: ['parameter', 'header'],
  description:
    'How a parameter or header is written on the wire (style, explode, allowReserved, content) changed; breaks clients (the runner writes every value in the default style, so no server).',
  check(context) {
    const changed = serializationKeys.filter((key) => !same(context, context.old.value[key] ?? null, context.new.value[key] ?? null));
    if (changed.length === 0) return [];
    return [
      {
        fact: `its serialization changed (${changed.join(', ')}): the same value is written differently on the wire`,
        ...unseenByRunner({
          clients: 'Clients written against OLD write the value as OLD says, which servers implementing NEW may misread: update them',
          why: 'the runner writes every parameter in the default style, whatever the document says',
        }),
        segments: [changed[0]!],
      },
    ];
  },
};

export const requestBodyBecameRequired: Rule = {
  name: 'request-body-became-required',
  sites: ['request-body'],
  description: 'An optional request body became required: OLD clients may send none; breaks clients.',
  check: (context) => becameRequired(context, 'required', 'the request body'),
};

export const requestBodyBecameOptional: Rule = {
  name: 'request-body-became-optional',
  sites: ['request-body'],
  description:
    'A required request body became optional: OLD servers refuse a request without one, but the runner never sends one without it, so compatible on both axes (with a warning).',
  check: (context) =>
    becameRequired(context, 'optional', 'the request body').map((finding) => ({
      ...finding,
      fact: `${finding.fact}; the runner always sends a body, so servers implementing OLD still pass conformance`,
      effect: undefined,
      ...unexercisedWidening('a request without a body'),
    })),
};

function mediaTypes(context: SiteContext, kind: 'added' | 'removed'): string[] {
  const before = record(context.old.value.content) ?? {};
  const after = record(context.new.value.content) ?? {};
  const lower = (names: string[]) => new Set(names.map((name) => name.toLowerCase()));
  const beforeNames = lower(Object.keys(before));
  const afterNames = lower(Object.keys(after));
  return kind === 'added'
    ? Object.keys(after).filter((name) => !beforeNames.has(name.toLowerCase()))
    : Object.keys(before).filter((name) => !afterNames.has(name.toLowerCase()));
}

export const requestMediaTypeAdded: Rule = {
  name: 'request-media-type-added',
  sites: ['request-body'],
  description:
    'The request body may be sent in another media type: OLD servers answer it 415, but the runner sends JSON bodies as application/json only, so compatible on both axes (with a warning).',
  check: (context) =>
    mediaTypes(context, 'added').map((name) => ({
      fact: `may now be sent as ${name}; the runner sends bodies as application/json only, so servers implementing OLD still pass conformance`,
      ...unexercisedWidening(`bodies sent as ${name}`),
      segments: ['content', name],
    })),
};

export const requestMediaTypeRemoved: Rule = {
  name: 'request-media-type-removed',
  sites: ['request-body'],
  description: 'A media type the request body could be sent in was removed: clients sending it are refused; breaks clients.',
  check: (context) =>
    mediaTypes(context, 'removed').map((name) => ({
      fact: `may no longer be sent as ${name}`,
      breaks: breaksClients,
      at: 'old' as const,
      segments: ['content', name],
    })),
};

export const responseMediaTypeAdded: Rule = {
  name: 'response-media-type-added',
  sites: ['response'],
  description: 'A response may come in another media type: OLD clients may not read it; breaks clients.',
  check: (context) =>
    mediaTypes(context, 'added').map((name) => ({ fact: `may now come as ${name}`, breaks: breaksClients, segments: ['content', name] })),
};

export const responseMediaTypeRemoved: Rule = {
  name: 'response-media-type-removed',
  sites: ['response'],
  description:
    'A response media type was removed: OLD servers still send it (breaks servers); when no body is left, clients expecting one break too.',
  check(context) {
    const left = Object.keys(record(context.new.value.content) ?? {}).length;
    return mediaTypes(context, 'removed').map((name) => ({
      fact: left === 0 ? `no longer has a body (it came as ${name})` : `no longer comes as ${name}`,
      breaks: { clients: left === 0, servers: true },
      at: 'old' as const,
      segments: ['content', name],
    }));
  },
};

function headerNames(value: Record<string, any>): Map<string, string> {
  return new Map(Object.keys(record(value.headers) ?? {}).map((name) => [name.toLowerCase(), name]));
}

const isRequired = (document: Record<string, any>, header: unknown) => deref(document, header, '').value.required === true;

export const responseHeaderAdded: Rule = {
  name: 'response-header-added',
  sites: ['response'],
  description: 'A response header was documented: required, OLD servers do not send it (breaks servers); optional, compatible.',
  check(context) {
    const before = headerNames(context.old.value);
    const headers = record(context.new.value.headers) ?? {};
    return [...headerNames(context.new.value)]
      .filter(([lower]) => !before.has(lower))
      .map(([lower, name]) => {
        const required = isRequired(context.documents.new, headers[name]);
        return {
          fact: `gained the ${required ? 'required' : 'optional'} header ${name}`,
          breaks: required ? breaksServers : compatible,
          segments: ['headers', name],
          subject: { kind: 'response-header' as const, status: statusOf(context), header: lower },
        };
      });
  },
};

export const responseHeaderRemoved: Rule = {
  name: 'response-header-removed',
  sites: ['response'],
  description: 'A response header was removed: clients relying on a required one break; an optional one is compatible.',
  check(context) {
    const after = headerNames(context.new.value);
    const headers = record(context.old.value.headers) ?? {};
    return [...headerNames(context.old.value)]
      .filter(([lower]) => !after.has(lower))
      .map(([lower, name]) => {
        const required = isRequired(context.documents.old, headers[name]);
        return {
          fact: `lost the ${required ? 'required' : 'optional'} header ${name}`,
          breaks: required ? breaksClients : compatible,
          at: 'old' as const,
          segments: ['headers', name],
          subject: { kind: 'response-header' as const, status: statusOf(context), header: lower },
        };
      });
  },
};

function statusOf(context: SiteContext): string {
  return context.subject.kind === 'status' || context.subject.kind === 'response-body' || context.subject.kind === 'response-header'
    ? context.subject.status
    : '';
}

export const responseHeaderBecameRequired: Rule = {
  name: 'response-header-became-required',
  sites: ['header'],
  description: 'An optional response header became required: OLD servers may leave it out; breaks servers.',
  check: (context) => becameRequired(context, 'required', 'the header'),
};

export const responseHeaderBecameOptional: Rule = {
  name: 'response-header-became-optional',
  sites: ['header'],
  description: 'A required response header became optional: OLD clients may rely on it; breaks clients.',
  check: (context) => becameRequired(context, 'optional', 'the header'),
};
