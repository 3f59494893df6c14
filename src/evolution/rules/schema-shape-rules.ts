/**
 * @module evolution/rules/schema-shape-rules
 * Rules on an object's shape and on composition: properties added and removed, required-ness,
 * additionalProperties, and oneOf/anyOf/allOf. Whether an added property breaks anyone depends
 * on whether OLD's object was closed (additionalProperties: false): a closed request object
 * refused it, so OLD servers refuse NEW clients; a closed response object makes strict OLD
 * clients refuse the new field.
 */
import { breaksBoth, combine, compatible, probedNarrowing, runnerMutates } from '../classify.js';
import { type Finding, type Rule, record, type SiteContext } from '../rule.js';
import { canonicalOf } from '../same.js';
import type { Breaks } from '../types.js';

const propertiesOf = (schema: Record<string, any>) => record(schema.properties) ?? {};
const requiredOf = (schema: Record<string, any>) => new Set<string>(Array.isArray(schema.required) ? schema.required.map(String) : []);

/** What an object does with properties it does not name. */
export function extrasOf(schema: Record<string, any>): 'closed' | 'schema' | 'open' {
  if (schema.additionalProperties === false || schema.unevaluatedProperties === false) return 'closed';
  if (record(schema.additionalProperties) || record(schema.unevaluatedProperties)) return 'schema';
  return 'open';
}

const nameOf = (_context: SiteContext, name: string) => `\`${name}\``;

function addedProperties(context: SiteContext, required: boolean): Finding[] {
  const before = propertiesOf(context.old.value);
  const after = requiredOf(context.new.value);
  const closed = extrasOf(context.old.value) === 'closed';
  return Object.keys(propertiesOf(context.new.value))
    .filter((name) => !Object.hasOwn(before, name) && after.has(name) === required)
    .map((name) => {
      // Request: a new optional field is refused (closed) or ignored (open) by OLD servers, so it
      // widens either way; required, clients must also send it. Response: a closed OLD object
      // makes strict OLD clients refuse it; required, OLD servers never send it.
      const effect =
        context.direction === 'request'
          ? combine('widens', required ? 'narrows' : 'none')
          : combine(closed ? 'widens' : 'none', required ? 'narrows' : 'none');
      const how = closed ? 'OLD refused unknown properties' : 'OLD ignored unknown properties';
      return {
        fact: `gained the ${required ? 'required' : 'optional'} property ${nameOf(context, name)} (${how})`,
        effect,
        segments: ['properties', name],
      };
    });
}

export const propertyAdded: Rule = {
  name: 'property-added',
  sites: ['schema'],
  description:
    'An optional property was added: breaks servers for a request (OLD servers refuse or ignore it), clients for a closed response object.',
  check: (context) => addedProperties(context, false),
};

export const requiredPropertyAdded: Rule = {
  name: 'required-property-added',
  sites: ['schema'],
  description:
    'A required property was added: a request breaks both (clients must send it, OLD servers refuse or ignore it); a response breaks servers (and clients, if the object was closed).',
  check: (context) => addedProperties(context, true),
};

export const propertyRemoved: Rule = {
  name: 'property-removed',
  sites: ['schema'],
  description:
    'A property was removed: a request breaks clients that send it (and servers that required it); a response breaks clients that relied on a required field and servers if NEW refuses it.',
  check(context) {
    const after = propertiesOf(context.new.value);
    const wasRequired = requiredOf(context.old.value);
    const closed = extrasOf(context.new.value) === 'closed';
    return Object.keys(propertiesOf(context.old.value))
      .filter((name) => !Object.hasOwn(after, name))
      .map((name): Finding => {
        const required = wasRequired.has(name);
        const breaks: Breaks =
          context.direction === 'request' ? { clients: true, servers: required } : { clients: required, servers: closed };
        const what = `${required ? 'required' : 'optional'} property ${nameOf(context, name)}`;
        return {
          fact: `lost the ${what}${closed ? ' (NEW refuses unknown properties)' : ''}`,
          breaks,
          at: 'old',
          segments: ['properties', name],
        };
      });
  },
};

function requiredChange(context: SiteContext, became: 'required' | 'optional'): Finding[] {
  const before = requiredOf(context.old.value);
  const after = requiredOf(context.new.value);
  const inOld = propertiesOf(context.old.value);
  const inNew = propertiesOf(context.new.value);
  // Names added or removed with their property are the add/remove rules' to report.
  const names = became === 'required' ? [...after].filter((name) => !before.has(name)) : [...before].filter((name) => !after.has(name));
  return names
    .filter((name) => Object.hasOwn(inOld, name) === Object.hasOwn(inNew, name))
    .map((name): Finding => {
      const fact = `property ${nameOf(context, name)} became ${became}`;
      // The runner sends a JSON body without each required property and requires a refusal.
      if (became === 'required' && runnerMutates(context) === 'body' && context.new.value.type === 'object')
        return { fact: `${fact}; the runner sends a body without it`, ...probedNarrowing, segments: ['required'] };
      return { fact, effect: became === 'required' ? 'narrows' : 'widens', segments: ['required'] };
    });
}

export const propertyBecameRequired: Rule = {
  name: 'property-became-required',
  sites: ['schema'],
  description: 'An existing property became required; narrows (request: clients must send it; response: OLD servers may leave it out).',
  check: (context) => requiredChange(context, 'required'),
};

export const propertyBecameOptional: Rule = {
  name: 'property-became-optional',
  sites: ['schema'],
  description:
    'A required property became optional; widens (response: clients may no longer get it; request: OLD servers still demand it).',
  check: (context) => requiredChange(context, 'optional'),
};

const extrasRank = { closed: 0, schema: 1, open: 2 } as const;

export const additionalPropertiesClosed: Rule = {
  name: 'additional-properties-closed',
  sites: ['schema'],
  description: 'Properties an object does not name are now refused (additionalProperties: false) or constrained; narrows.',
  check(context) {
    const before = extrasOf(context.old.value);
    const after = extrasOf(context.new.value);
    if (extrasRank[after] >= extrasRank[before]) return [];
    const fact = `now ${after === 'closed' ? 'refuses' : 'constrains'} properties it does not name (additionalProperties)`;
    // The runner sends a JSON body object with an unknown property when NEW says additionalProperties: false.
    if (context.new.value.additionalProperties === false && runnerMutates(context) === 'body' && context.new.value.type === 'object')
      return [{ fact: `${fact}; the runner sends an unknown property`, ...probedNarrowing, segments: ['additionalProperties'] }];
    return [{ fact, effect: 'narrows', segments: ['additionalProperties'] }];
  },
};

export const additionalPropertiesOpened: Rule = {
  name: 'additional-properties-opened',
  sites: ['schema'],
  description:
    'Properties an object does not name were refused and are now allowed (or less constrained); widens. In a request the runner sends no property a document does not name, so OLD servers still pass `conformance --spec NEW` (compatible on both axes, with a warning).',
  check(context) {
    const before = extrasOf(context.old.value);
    const after = extrasOf(context.new.value);
    if (extrasRank[after] <= extrasRank[before]) return [];
    const fact = `now ${after === 'open' ? 'allows' : 'allows, within a schema,'} properties it does not name (additionalProperties)`;
    if (context.direction === 'request')
      return [
        {
          fact: `${fact}; the runner sends no property the document does not name, so servers implementing OLD still pass conformance`,
          breaks: compatible,
          advice:
            'No client or server needs to change for conformance; but servers implementing OLD still refuse unknown properties, so clients should not send them until servers do.',
          at: 'old',
          segments: ['additionalProperties'],
        },
      ];
    return [{ fact, effect: 'widens', at: 'old', segments: ['additionalProperties'] }];
  },
};

export const compositionKeywords = ['oneOf', 'anyOf', 'allOf'] as const;
type CompositionKeyword = (typeof compositionKeywords)[number];

/** OLD's and NEW's branches of one keyword, paired: by $ref, then by content, then by position if as many remain. */
export function pairBranches(context: SiteContext, keyword: CompositionKeyword) {
  const before: unknown[] = Array.isArray(context.old.value[keyword]) ? context.old.value[keyword] : [];
  const after: unknown[] = Array.isArray(context.new.value[keyword]) ? context.new.value[keyword] : [];
  const oldLeft = new Set(before.map((_, index) => index));
  const newLeft = new Set(after.map((_, index) => index));
  const pairs: [number, number][] = [];
  const key = (side: 'old' | 'new', branch: unknown) => canonicalOf(context, side, branch);
  const ref = (branch: unknown) => (typeof record(branch)?.$ref === 'string' ? (record(branch)!.$ref as string) : undefined);
  const match = (same: (a: number, b: number) => boolean) => {
    for (const a of [...oldLeft]) {
      const b = [...newLeft].find((candidate) => same(a, candidate));
      if (b !== undefined) {
        pairs.push([a, b]);
        oldLeft.delete(a);
        newLeft.delete(b);
      }
    }
  };
  match((a, b) => ref(before[a]) !== undefined && ref(before[a]) === ref(after[b]));
  match((a, b) => key('old', before[a]) === key('new', after[b]));
  if (oldLeft.size === newLeft.size) match((a, b) => [...oldLeft].indexOf(a) === [...newLeft].indexOf(b));
  return { pairs, removed: [...oldLeft], added: [...newLeft], before, after };
}

function branchChanges(context: SiteContext, kind: 'added' | 'removed'): Finding[] {
  const findings: Finding[] = [];
  for (const keyword of compositionKeywords) {
    if (!Array.isArray(context.old.value[keyword]) || !Array.isArray(context.new.value[keyword])) continue;
    const paired = pairBranches(context, keyword);
    // Another alternative (oneOf/anyOf) accepts more; another allOf member demands more.
    const more = keyword === 'allOf' ? 'narrows' : 'widens';
    const less = keyword === 'allOf' ? 'widens' : 'narrows';
    for (const index of paired[kind]) {
      const branch = record((kind === 'added' ? paired.after : paired.before)[index]);
      const label = typeof branch?.$ref === 'string' ? ` ${branch.$ref}` : '';
      findings.push({
        fact: `${keyword} ${kind === 'added' ? 'gained' : 'lost'} the branch ${index}${label}${keyword === 'oneOf' ? ' (if branches overlap, oneOf may also refuse values that now match two)' : ''}`,
        effect: kind === 'added' ? more : less,
        segments: [keyword, index],
        ...(kind === 'removed' ? { at: 'old' as const } : {}),
      });
    }
  }
  return findings;
}

export const compositionBranchAdded: Rule = {
  name: 'composition-branch-added',
  sites: ['schema'],
  description: 'A oneOf/anyOf alternative was added (widens) or an allOf member (narrows).',
  check: (context) => branchChanges(context, 'added'),
};

export const compositionBranchRemoved: Rule = {
  name: 'composition-branch-removed',
  sites: ['schema'],
  description: 'A oneOf/anyOf alternative was removed (narrows) or an allOf member (widens).',
  check: (context) => branchChanges(context, 'removed'),
};

export const compositionChanged: Rule = {
  name: 'composition-changed',
  sites: ['schema'],
  description:
    'oneOf/anyOf/allOf/not or a discriminator appeared, disappeared or changed kind; not compared further, so classified as breaking both.',
  check(context) {
    const { old, new: next } = context;
    const present = (schema: Record<string, any>) =>
      [...compositionKeywords, 'not'].filter((keyword) => schema[keyword] !== undefined).join(', ') || 'none';
    const findings: Finding[] = [];
    if (present(old.value) !== present(next.value)) {
      findings.push({
        fact: `composition changed from ${present(old.value)} to ${present(next.value)} (the diff does not compare across composition kinds, so it is classified as breaking both; review it)`,
        breaks: breaksBoth,
      });
    } else if (old.value.not !== undefined && canonicalOf(context, 'old', old.value.not) !== canonicalOf(context, 'new', next.value.not)) {
      findings.push({ fact: 'its `not` schema changed (classified as breaking both; review it)', breaks: breaksBoth, segments: ['not'] });
    }
    const discriminator = (side: 'old' | 'new') => canonicalOf(context, side, context[side].value.discriminator ?? null);
    if (discriminator('old') !== discriminator('new')) {
      findings.push({
        fact: 'its discriminator changed (clients and servers pick branches by it; classified as breaking both)',
        breaks: breaksBoth,
        segments: ['discriminator'],
      });
    }
    return findings;
  },
};

/** Keywords the schema rules and the walker understand; any other that changes is reported conservatively. */
export const understoodSchemaKeys = new Set([
  'type',
  'enum',
  'const',
  'pattern',
  'format',
  'default',
  'properties',
  'required',
  'additionalProperties',
  'unevaluatedProperties',
  'items',
  'prefixItems',
  'oneOf',
  'anyOf',
  'allOf',
  'not',
  'discriminator',
  'maxLength',
  'maxItems',
  'maximum',
  'exclusiveMaximum',
  'maxProperties',
  'maxContains',
  'minLength',
  'minItems',
  'minProperties',
  'minContains',
  'minimum',
  'exclusiveMinimum',
  // Identifiers and containers: what they hold is compared where it is used.
  '$ref',
  '$id',
  '$schema',
  '$anchor',
  '$defs',
  'definitions',
]);

export const schemaKeywordChanged: Rule = {
  name: 'schema-keyword-changed',
  sites: ['schema'],
  description:
    'A schema keyword the diff does not reason about (multipleOf, uniqueItems, readOnly, if/then/else, ...) changed; classified as breaking both.',
  check(context) {
    const keys = new Set([...Object.keys(context.old.value), ...Object.keys(context.new.value)]);
    return [...keys]
      .filter((key) => !understoodSchemaKeys.has(key) && !isAnnotation(key))
      .filter(
        (key) =>
          canonicalOf(context, 'old', context.old.value[key] ?? null) !== canonicalOf(context, 'new', context.new.value[key] ?? null),
      )
      .map((key) => ({
        fact: `keyword \`${key}\` changed (the diff does not reason about it, so it is classified as breaking both; review it)`,
        breaks: breaksBoth,
        segments: [key],
      }));
  },
};

/** Wording, deprecation and extensions: the generic rules' to report. */
export const annotationKeys = new Set([
  'title',
  'description',
  'summary',
  'examples',
  'example',
  '$comment',
  'externalDocs',
  'tags',
  'contact',
  'license',
  'termsOfService',
  'xml',
]);

export function isAnnotation(key: string): boolean {
  return annotationKeys.has(key) || key === 'deprecated' || key.startsWith('x-');
}
