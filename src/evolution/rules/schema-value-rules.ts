/**
 * @module evolution/rules/schema-value-rules
 * Rules on the values one schema accepts: its type, enum, limits, pattern, format and default.
 * Each says whether NEW accepts more values (widens) or fewer (narrows); classify.ts turns that
 * into who it breaks by the direction the values travel.
 */
import {
  probedNarrowing,
  runnerBlindToWidening,
  runnerCanMutatePattern,
  runnerMutates,
  unseenByRunner,
  unseenWidening,
} from '../classify.js';
import { compareRegexLanguages } from '../pattern-containment.js';
import type { Finding, Rule, SiteContext } from '../rule.js';
import { shown } from '../rule.js';
import { canonicalOf, same } from '../same.js';
import type { Effect } from '../types.js';

function typesOf(schema: Record<string, any>): Set<string> | undefined {
  if (typeof schema.type === 'string') return new Set([schema.type]);
  if (Array.isArray(schema.type)) return new Set(schema.type.map(String));
  return undefined;
}

const accepts = (types: Set<string>, type: string) => types.has(type) || (type === 'integer' && types.has('number'));
const typeText = (types: Set<string> | undefined) => (types ? [...types].join(' or ') : 'any type');

export const typeChanged: Rule = {
  name: 'type-changed',
  sites: ['schema'],
  description: 'The JSON type(s) a schema accepts changed; fewer types narrows, more widens, a swap does both.',
  check(context) {
    const before = typesOf(context.old.value);
    const after = typesOf(context.new.value);
    if (!before && !after) return [];
    let effect: Effect;
    if (!before) effect = 'narrows';
    else if (!after) effect = 'widens';
    else {
      const newWithinOld = [...after].every((type) => accepts(before, type));
      const oldWithinNew = [...before].every((type) => accepts(after, type));
      if (newWithinOld && oldWithinNew) return [];
      effect = newWithinOld ? 'narrows' : oldWithinNew ? 'widens' : 'both';
    }
    const fact = `type changed from ${typeText(before)} to ${typeText(after)}`;
    if (effect === 'narrows' && runnerSendsOldType(context, before))
      return [{ fact: `${fact}; the runner sends a value of a type OLD accepts`, ...probedNarrowing, segments: ['type'] }];
    return [{ fact, effect, segments: ['type'] }];
  },
};

/**
 * The runner's type mutations of a JSON body value (generators/mutations.ts): null, and an array
 * for an object, a string for an array, a number for a string. OLD servers fail when OLD accepts one.
 */
function runnerSendsOldType(context: SiteContext, before: Set<string> | undefined): boolean {
  if (runnerMutates(context) !== 'body') return false;
  const sent = ({ object: ['array', 'null'], array: ['string', 'null'], string: ['integer', 'null'] } as Record<string, string[]>)[
    String(context.new.value.type)
  ];
  return sent !== undefined && (before === undefined || sent.some((type) => accepts(before, type)));
}

/** The values an `enum` (or a `const`, an enum of one) allows, by canonical text; undefined when any. */
function enumOf(context: SiteContext, side: 'old' | 'new'): Map<string, unknown> | undefined {
  const schema = context[side].value;
  const values = Array.isArray(schema.enum) ? schema.enum : 'const' in schema ? [schema.const] : undefined;
  if (!values) return undefined;
  return new Map(values.map((value: unknown) => [canonicalOf(context, side, value), value]));
}

function listed(values: readonly unknown[]): string {
  const named = values.slice(0, 6).map(shown).join(', ');
  return values.length > 6 ? `${named} and ${values.length - 6} more` : named;
}

const enumKeyword = (schema: Record<string, any>) => (Array.isArray(schema.enum) ? 'enum' : 'const');

export const enumValueAdded: Rule = {
  name: 'enum-value-added',
  sites: ['schema'],
  description: 'An allowed value was added to an enum (or const); widens.',
  check(context) {
    const before = enumOf(context, 'old');
    const after = enumOf(context, 'new');
    if (!before || !after) return [];
    const added = [...after].filter(([key]) => !before.has(key)).map(([, value]) => value);
    if (added.length === 0) return [];
    return [
      {
        fact: `gained the value${added.length > 1 ? 's' : ''} ${listed(added)}`,
        effect: 'widens',
        segments: [enumKeyword(context.new.value)],
      },
    ];
  },
};

export const enumValueRemoved: Rule = {
  name: 'enum-value-removed',
  sites: ['schema'],
  description: 'An allowed value was removed from an enum (or const); narrows.',
  check(context) {
    const before = enumOf(context, 'old');
    const after = enumOf(context, 'new');
    if (!before || !after) return [];
    const removed = [...before].filter(([key]) => !after.has(key)).map(([, value]) => value);
    if (removed.length === 0) return [];
    return [
      {
        fact: `lost the value${removed.length > 1 ? 's' : ''} ${listed(removed)}`,
        effect: 'narrows',
        segments: [enumKeyword(context.new.value)],
      },
    ];
  },
};

export const enumAdded: Rule = {
  name: 'enum-added',
  sites: ['schema'],
  description: 'A schema that took any value is now limited to a list (enum or const); narrows.',
  check(context) {
    const after = enumOf(context, 'new');
    if (enumOf(context, 'old') || !after) return [];
    const fact = `is now limited to ${listed([...after.values()])}`;
    // The runner sends 'NOT_A_LISTED_VALUE' (and near neighbours) for a string enum; OLD took any value.
    if (runnerMutates(context) && context.new.value.type === 'string' && Array.isArray(context.new.value.enum))
      return [{ fact, ...probedNarrowing, segments: ['enum'] }];
    return [{ fact, effect: 'narrows', segments: [enumKeyword(context.new.value)] }];
  },
};

export const enumRemoved: Rule = {
  name: 'enum-removed',
  sites: ['schema'],
  description: 'A schema limited to a list (enum or const) now takes any value of its type; widens.',
  check(context) {
    const before = enumOf(context, 'old');
    if (!before || enumOf(context, 'new')) return [];
    return [
      {
        fact: `is no longer limited to ${listed([...before.values()])}`,
        effect: 'widens',
        at: 'old',
        segments: [enumKeyword(context.old.value)],
      },
    ];
  },
};

/** An upper or lower bound keyword, and the value it has when absent. */
interface LimitKeyword {
  readonly key: string;
  readonly bound: 'upper' | 'lower';
  readonly absent: number;
}

const schemaLimits: readonly LimitKeyword[] = [
  ...['maxLength', 'maxItems', 'maximum', 'exclusiveMaximum', 'maxProperties', 'maxContains'].map(
    (key): LimitKeyword => ({ key, bound: 'upper', absent: Number.POSITIVE_INFINITY }),
  ),
  ...['minLength', 'minItems', 'minProperties'].map((key): LimitKeyword => ({ key, bound: 'lower', absent: 0 })),
  { key: 'minContains', bound: 'lower', absent: 1 },
  ...['minimum', 'exclusiveMinimum'].map((key): LimitKeyword => ({ key, bound: 'lower', absent: Number.NEGATIVE_INFINITY })),
];

/**
 * Byte limits written as extensions (`x-max-bytes`, `x-maxBodySize`, `x-min-size-bytes`): any
 * `x-` key naming max or min and bytes or size, with a number for its value.
 */
export function isByteLimitKey(key: string): boolean {
  return /^x-/i.test(key) && /(max|min)/i.test(key) && /(bytes|size)/i.test(key);
}

function limitsOf(context: SiteContext): LimitKeyword[] {
  const keys = new Set([...Object.keys(context.old.value), ...Object.keys(context.new.value)]);
  const extensions = [...keys]
    .filter(isByteLimitKey)
    .map(
      (key): LimitKeyword =>
        /max/i.test(key) ? { key, bound: 'upper', absent: Number.POSITIVE_INFINITY } : { key, bound: 'lower', absent: 0 },
    );
  return [...(context.site === 'schema' ? schemaLimits : []), ...extensions];
}

const numberOr = (value: unknown, absent: number) => (typeof value === 'number' && Number.isFinite(value) ? value : absent);
const limitText = (value: number) => (Number.isFinite(value) ? String(value) : 'none');

/** The limits that moved, each with whether NEW's bound lets fewer values through. */
function movedLimits(context: SiteContext): { key: string; before: number; after: number; tighter: boolean }[] {
  const moved: { key: string; before: number; after: number; tighter: boolean }[] = [];
  for (const { key, bound, absent } of limitsOf(context)) {
    const before = numberOr(context.old.value[key], absent);
    const after = numberOr(context.new.value[key], absent);
    if (before === after) continue;
    moved.push({ key, before, after, tighter: bound === 'upper' ? after < before : after > before });
  }
  return moved;
}

/** Extension byte limits say in their name which way they apply; schema limits travel with the schema. */
function limitFinding(context: SiteContext, moved: ReturnType<typeof movedLimits>[number], effect: Effect): Finding {
  const verb = moved.tighter ? 'tightened' : 'loosened';
  const fact = `\`${moved.key}\` ${verb} from ${limitText(moved.before)} to ${limitText(moved.after)}`;
  if (context.direction) {
    if (moved.tighter && runnerProbesLimit(context, moved.key))
      return { fact: `${fact}; the runner sends a value past NEW's limit`, ...probedNarrowing, segments: [moved.key] };
    if (!moved.tighter && runnerBlindToWidening(context)) return { fact, ...unseenWidening, segments: [moved.key] };
    return { fact, effect, segments: [moved.key] };
  }
  const direction = /response/i.test(moved.key) ? 'response' : 'request';
  const clients = direction === 'request' ? effect === 'narrows' : effect === 'widens';
  return { fact: `${fact} (a ${direction} limit)`, breaks: { clients, servers: !clients }, segments: [moved.key] };
}

/** The limits the runner sends a value just past (generators/mutations.ts): lengths, and item counts in a body. */
function runnerProbesLimit(context: SiteContext, key: string): boolean {
  const part = runnerMutates(context);
  if (!part || context.site !== 'schema') return false;
  // An enum's value is never mutated for its length, and padding a patterned string breaks its pattern too.
  if (key === 'maxLength' || key === 'minLength')
    return context.new.value.type === 'string' && !Array.isArray(context.new.value.enum) && context.new.value.pattern === undefined;
  if (key === 'maxItems' || key === 'minItems') return part === 'body' && context.new.value.type === 'array';
  return false;
}

export const limitTightened: Rule = {
  name: 'limit-tightened',
  sites: ['schema', 'parameter', 'header', 'media-type', 'request-body', 'response', 'operation', 'document'],
  description: 'A maximum lowered or a minimum raised (lengths, items, values, properties, byte limits in x- extensions); narrows.',
  check: (context) =>
    movedLimits(context)
      .filter((moved) => moved.tighter)
      .map((moved) => limitFinding(context, moved, 'narrows')),
};

export const limitLoosened: Rule = {
  name: 'limit-loosened',
  sites: ['schema', 'parameter', 'header', 'media-type', 'request-body', 'response', 'operation', 'document'],
  description: 'A maximum raised or a minimum lowered (or either removed); widens.',
  check: (context) =>
    movedLimits(context)
      .filter((moved) => !moved.tighter)
      .map((moved) => limitFinding(context, moved, 'widens')),
};

/** The runner sends near misses of a pattern it can build values for, and of `format: uri` (generators/near-misses.ts). */
function runnerProbesKeyword(context: SiteContext, key: 'pattern' | 'format', value: string): boolean {
  if (!runnerMutates(context) || context.new.value.type !== 'string' || Array.isArray(context.new.value.enum)) return false;
  return key === 'pattern' ? runnerCanMutatePattern(value) : value === 'uri';
}

/** A changed pattern: containment decided where it can be, else both, saying why. */
function patternChangedFinding(context: SiteContext, before: string, after: string): Finding | undefined {
  const comparison = compareRegexLanguages(before, after);
  const what = `pattern changed from ${shown(before)} to ${shown(after)}`;
  if ('undecided' in comparison)
    return {
      fact: `${what} (whether one contains the other cannot be decided: ${comparison.undecided}; classified as breaking both)`,
      effect: 'both',
      segments: ['pattern'],
    };
  const { relation } = comparison;
  if (relation === 'equal') return { fact: `${what}, which accepts the same strings`, effect: 'none', segments: ['pattern'] };
  if (relation === 'narrows' && runnerProbesKeyword(context, 'pattern', after))
    return {
      fact: `${what}, which accepts fewer strings; the runner sends near misses OLD accepts`,
      ...probedNarrowing,
      segments: ['pattern'],
    };
  const how = { narrows: 'fewer strings', widens: 'more strings', both: 'strings OLD refused, and refuses some OLD accepted' }[relation];
  return { fact: `${what}, which accepts ${how}`, effect: relation, segments: ['pattern'] };
}

function stringKeyword(key: 'pattern' | 'format', kind: 'added' | 'removed' | 'changed'): Rule {
  const effects = { added: 'narrows', removed: 'widens', changed: 'both' } as const;
  const descriptions = {
    added: `A ${key} now constrains a string that had none; narrows.`,
    removed: `A ${key} no longer constrains a string; widens.`,
    changed:
      key === 'pattern'
        ? 'A pattern was replaced by another: narrows, widens or both as the strings each accepts are contained (decided for classes, literals, counted repeats and alternations; otherwise classified as breaking both, saying why).'
        : `A ${key} was replaced by another; whether one contains the other is not decided, so it is classified as breaking both.`,
  };
  return {
    name: `${key}-${kind}`,
    sites: ['schema'],
    description: descriptions[kind],
    check(context) {
      const { old, new: next } = context;
      const before = typeof old.value[key] === 'string' ? (old.value[key] as string) : undefined;
      const after = typeof next.value[key] === 'string' ? (next.value[key] as string) : undefined;
      if (before === after) return [];
      const found = before === undefined ? 'added' : after === undefined ? 'removed' : 'changed';
      if (found !== kind) return [];
      if (kind === 'changed' && key === 'pattern')
        return [patternChangedFinding(context, before!, after!)].filter((finding) => finding !== undefined);
      if (kind === 'added' && runnerProbesKeyword(context, key, after!))
        return [
          {
            fact: `now must match the ${key} ${shown(after)}; the runner sends near misses OLD accepts`,
            ...probedNarrowing,
            segments: [key],
          },
        ];
      const fact =
        kind === 'added'
          ? `now must match the ${key} ${shown(after)}`
          : kind === 'removed'
            ? `no longer must match the ${key} ${shown(before)}`
            : `${key} changed from ${shown(before)} to ${shown(after)} (one is not known to contain the other, so this is classified as breaking both)`;
      return [{ fact, effect: effects[kind], segments: [key], ...(kind === 'removed' ? { at: 'old' as const } : {}) }];
    },
  };
}

export const patternAdded = stringKeyword('pattern', 'added');
export const patternRemoved = stringKeyword('pattern', 'removed');
export const patternChanged = stringKeyword('pattern', 'changed');
export const formatAdded = stringKeyword('format', 'added');
export const formatRemoved = stringKeyword('format', 'removed');
export const formatChanged = stringKeyword('format', 'changed');

export const defaultValueChanged: Rule = {
  name: 'default-value-changed',
  sites: ['schema'],
  description:
    'The default of a request value changed: a server fills in another value for clients that leave it out (breaks clients; the runner never tells the two apart, so no server); in a response it is only an annotation.',
  check(context) {
    const { old, new: next } = context;
    if (!('default' in old.value) && !('default' in next.value)) return [];
    if (same(context, old.value.default, next.value.default)) return [];
    const fact = `default changed from ${'default' in old.value ? shown(old.value.default) : 'none'} to ${'default' in next.value ? shown(next.value.default) : 'none'}`;
    if (context.direction !== 'request') return [{ fact, effect: 'none', segments: ['default'] }];
    const unseen = unseenByRunner({
      clients: 'Clients written against OLD that leave the value out get another one filled in: check that they still mean it',
      why: "which value a server fills in is not in its answer, so no run tells OLD's from NEW's",
    });
    return [{ fact, ...unseen, segments: ['default'] }];
  },
};
