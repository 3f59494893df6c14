/**
 * @module evolution/rules/generic-rules
 * Rules that apply at every site: wording (descriptions, summaries, titles, examples), `x-`
 * extensions and deprecation, all compatible; and the safety net, `unclassified-change`, for a
 * field the diff does not understand, classified as breaking clients so that nothing changes
 * unseen (and no server: the runner reads none of these fields either, A-46).
 */
import { compatible, unseenByRunner } from '../classify.js';
import { type Finding, type Rule, record, type Site, type SiteContext } from '../rule.js';
import { canonicalOf } from '../same.js';
import { annotationKeys } from './schema-shape-rules.js';
import { isByteLimitKey } from './schema-value-rules.js';

const allSites: readonly Site[] = ['document', 'operation', 'parameter', 'request-body', 'media-type', 'response', 'header', 'schema'];

/** The fields each site's rules and the walker compare (annotations and extensions aside). */
const understood: Readonly<Record<Exclude<Site, 'schema'>, readonly string[]>> = {
  document: ['openapi', 'info', 'servers', 'paths', 'components', 'security'],
  operation: ['operationId', 'parameters', 'requestBody', 'responses', 'security'],
  parameter: ['name', 'in', 'required', 'schema', 'style', 'explode', 'allowReserved', 'allowEmptyValue', 'content'],
  'request-body': ['content', 'required'],
  'media-type': ['schema'],
  response: ['content', 'headers'],
  header: ['required', 'schema', 'style', 'explode', 'content'],
};

/** The node's own fields, and at the document site its info's (but version, which has its own rule). */
function fieldsOf(context: SiteContext, side: 'old' | 'new'): Record<string, unknown> {
  const value = context[side].value;
  if (context.site !== 'document') return value;
  const fields: Record<string, unknown> = { ...value };
  for (const [key, entry] of Object.entries(record(value.info) ?? {})) if (key !== 'version') fields[`info.${key}`] = entry;
  return fields;
}

function changedKeys(context: SiteContext, keep: (key: string) => boolean): string[] {
  const before = fieldsOf(context, 'old');
  const after = fieldsOf(context, 'new');
  const keys = new Set([...Object.keys(before), ...Object.keys(after)]);
  return [...keys]
    .filter(keep)
    .filter((key) => canonicalOf(context, 'old', before[key] ?? null) !== canonicalOf(context, 'new', after[key] ?? null));
}

const bare = (key: string) => key.replace(/^info\./, '');
const segmentsOf = (key: string) => (key.startsWith('info.') ? ['info', bare(key)] : [key]);

export const wordingChanged: Rule = {
  name: 'wording-changed',
  sites: allSites,
  description: 'Descriptions, summaries, titles, examples, tags or external docs changed; compatible.',
  check(context) {
    const keys = changedKeys(context, (key) => annotationKeys.has(bare(key)));
    if (keys.length === 0) return [];
    return [{ fact: `wording changed (${keys.join(', ')})`, breaks: compatible, segments: segmentsOf(keys[0]!) }];
  },
};

export const extensionChanged: Rule = {
  name: 'extension-changed',
  sites: allSites,
  description:
    'An x- extension changed (byte limits aside, which the limit rules read); compatible, as the diff cannot know what it means.',
  check(context) {
    const keys = changedKeys(context, (key) => bare(key).startsWith('x-') && !isByteLimitKey(bare(key)));
    if (keys.length === 0) return [];
    return [
      {
        fact: `extension${keys.length > 1 ? 's' : ''} ${keys.join(', ')} changed (not reasoned about; check whether your tools read ${keys.length > 1 ? 'them' : 'it'})`,
        breaks: compatible,
        segments: segmentsOf(keys[0]!),
      },
    ];
  },
};

export const deprecationChanged: Rule = {
  name: 'deprecation-changed',
  sites: allSites,
  description: 'Something was marked deprecated (or no longer is); compatible: a warning before a removal.',
  check(context) {
    const before = context.old.value.deprecated === true;
    const after = context.new.value.deprecated === true;
    if (before === after) return [];
    return [
      {
        fact: after ? 'was marked deprecated' : 'is no longer deprecated',
        breaks: compatible,
        advice: after
          ? 'Nothing breaks yet: move clients off it before a later version removes it.'
          : 'No client or server needs to change.',
        segments: ['deprecated'],
      },
    ];
  },
};

export const unclassifiedChange: Rule = {
  name: 'unclassified-change',
  sites: ['document', 'operation', 'parameter', 'request-body', 'media-type', 'response', 'header'],
  description:
    'A field the diff does not understand changed (callbacks, links, encoding, webhooks, servers of one operation, ...); classified as breaking clients; the runner does not read it, so no server.',
  check(context) {
    const known = new Set(understood[context.site as Exclude<Site, 'schema'>] ?? []);
    const keys = changedKeys(
      context,
      (key) => !key.startsWith('info.') && !known.has(key) && !annotationKeys.has(key) && key !== 'deprecated' && !key.startsWith('x-'),
    );
    return keys.map(
      (key): Finding => ({
        fact: `\`${key}\` changed (the diff does not reason about it, so it is classified as breaking clients; review it)`,
        ...unseenByRunner({
          clients: 'Clients written against OLD may rely on what this field described: review and update them',
          why: 'the runner does not read this field',
        }),
        segments: [key],
      }),
    );
  },
};
