/**
 * @module conformance/pact/generators
 * Pact's generators: values a pact says to make fresh at verification time instead of its
 * examples. The request's generators are applied before it is sent (`ProviderState` from the
 * values the provider state gave — a jobId — and the random ones); the expected response takes
 * only `ProviderState` values, since a random value could never equal what the provider sends
 * (its matching rules judge those fields). A generator that cannot be honoured keeps the example
 * value, as Pact's verifier does, and says so.
 */
import { randomBytes, randomInt, randomUUID } from 'node:crypto';
import { z } from 'zod';
import { compileDateFormat, type DateFormat, defaultDateFormat } from './date-formats.js';
import { PactFileError } from './pact-file-error.js';
import { type PathExpression, type PathStep, parsePathExpression } from './path-expression.js';

export type Generator =
  | { readonly type: 'ProviderState'; readonly expression: string; readonly dataType?: string }
  | { readonly type: 'RandomInt'; readonly min: number; readonly max: number }
  | { readonly type: 'RandomDecimal'; readonly digits: number }
  | { readonly type: 'RandomHexadecimal'; readonly digits: number }
  | { readonly type: 'RandomString'; readonly size: number }
  | { readonly type: 'Uuid'; readonly format?: string }
  | { readonly type: 'Date' | 'Time' | 'DateTime'; readonly format: DateFormat }
  | { readonly type: 'RandomBoolean' }
  /** Regex and MockServerURL: kept as the example (a string matching a regex is the consumer's own). */
  | { readonly type: 'Regex' | 'MockServerURL' };

export interface GeneratorSet {
  readonly status?: Generator;
  readonly path?: Generator;
  readonly headers: readonly (readonly [string, Generator])[];
  readonly query: readonly (readonly [string, Generator])[];
  readonly body: readonly { readonly expression: PathExpression; readonly generator: Generator }[];
}

export const noGenerators: GeneratorSet = { headers: [], query: [], body: [] };

const small = z.number().int().min(0).max(4096);
const rawGenerator = z.discriminatedUnion('type', [
  z.object({ type: z.literal('ProviderState'), expression: z.string().max(4096), dataType: z.string().max(32).optional() }),
  z.object({ type: z.literal('RandomInt'), min: z.number().int().optional(), max: z.number().int().optional() }),
  z.object({ type: z.literal('RandomDecimal'), digits: small.optional() }),
  z.object({ type: z.literal('RandomHexadecimal'), digits: small.optional() }),
  z.object({ type: z.literal('RandomString'), size: small.optional() }),
  z.object({ type: z.literal('Regex'), regex: z.string().max(4096).optional() }),
  z.object({ type: z.literal('Uuid'), format: z.string().max(32).optional() }),
  z.object({ type: z.enum(['Date', 'Time', 'DateTime']), format: z.string().max(128).optional() }),
  z.object({ type: z.literal('RandomBoolean') }),
  z.object({ type: z.literal('MockServerURL'), regex: z.string().max(4096).optional(), example: z.string().max(4096).optional() }),
]);

const generatorTypes = [
  'ProviderState',
  'RandomInt',
  'RandomDecimal',
  'RandomHexadecimal',
  'RandomString',
  'Regex',
  'Uuid',
  'Date',
  'Time',
  'DateTime',
  'RandomBoolean',
  'MockServerURL',
];

function readGenerator(raw: unknown, where: string): Generator {
  const type = (raw as { type?: unknown } | null)?.type;
  if (typeof type === 'string' && !generatorTypes.includes(type))
    throw new PactFileError(
      `${where}: unknown generator ${JSON.stringify(type.slice(0, 40))}; this runner knows ${generatorTypes.join(', ')}`,
    );
  const parsed = rawGenerator.safeParse(raw);
  if (!parsed.success) throw new PactFileError(`${where}: ${parsed.error.issues[0]?.message ?? 'not a generator'}`);
  const generator = parsed.data;
  switch (generator.type) {
    case 'RandomInt': {
      const min = generator.min ?? 0;
      const max = generator.max ?? 2 ** 31 - 1;
      if (min > max) throw new PactFileError(`${where}: RandomInt min ${min} is above max ${max}`);
      return { type: 'RandomInt', min, max };
    }
    case 'RandomDecimal':
      return { type: 'RandomDecimal', digits: Math.max(1, Math.min(generator.digits ?? 6, 15)) };
    case 'RandomHexadecimal':
      return { type: 'RandomHexadecimal', digits: generator.digits ?? 8 };
    case 'RandomString':
      return { type: 'RandomString', size: generator.size ?? 10 };
    case 'Date':
    case 'Time':
    case 'DateTime': {
      if (generator.format === undefined)
        return {
          type: generator.type,
          format: defaultDateFormat(generator.type === 'DateTime' ? 'timestamp' : generator.type === 'Date' ? 'date' : 'time'),
        };
      const format = compileDateFormat(generator.format);
      if (typeof format === 'string') throw new PactFileError(`${where}: the ${generator.type} format ${format}`);
      return { type: generator.type, format };
    }
    case 'Regex':
    case 'MockServerURL':
      return { type: generator.type };
    case 'ProviderState':
      return { type: 'ProviderState', expression: generator.expression, ...(generator.dataType ? { dataType: generator.dataType } : {}) };
    case 'Uuid':
      return { type: 'Uuid', ...(generator.format ? { format: generator.format } : {}) };
    case 'RandomBoolean':
      return { type: 'RandomBoolean' };
  }
}

function keyed(raw: unknown, where: string): [string, Generator][] {
  if (raw === undefined) return [];
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw new PactFileError(`${where}: must be an object`);
  const entries = Object.entries(raw as Record<string, unknown>);
  if (entries.length > 500) throw new PactFileError(`${where}: more than 500 generators`);
  return entries.map(([key, value]) => [key, readGenerator(value, `${where}['${key.slice(0, 80)}']`)]);
}

/** The name a header or query generator is keyed by: `Name`, `$.Name` or `$['Name']`. */
function plainName(key: string): string {
  const expression = parsePathExpression(key);
  const first = typeof expression === 'string' ? undefined : expression.tokens[0];
  return first?.kind === 'field' ? first.name : key;
}

/** Reads a request's or response's `generators` object. */
export function readGenerators(raw: unknown, where: string): GeneratorSet {
  if (raw === undefined || raw === null) return noGenerators;
  if (typeof raw !== 'object' || Array.isArray(raw)) throw new PactFileError(`${where}: generators must be an object`);
  const categories = raw as Record<string, unknown>;
  const body = keyed(categories.body, `${where}.body`).map(([key, generator]) => {
    const expression = parsePathExpression(key);
    if (typeof expression === 'string')
      throw new PactFileError(`${where}.body: the path ${JSON.stringify(key.slice(0, 80))} ${expression}`);
    return { expression, generator };
  });
  return {
    ...(categories.status === undefined ? {} : { status: readGenerator(categories.status, `${where}.status`) }),
    ...(categories.path === undefined ? {} : { path: readGenerator(categories.path, `${where}.path`) }),
    headers: keyed(categories.header, `${where}.header`).map(([key, generator]) => [plainName(key), generator] as const),
    query: keyed(categories.query, `${where}.query`).map(([key, generator]) => [plainName(key), generator] as const),
    body,
  };
}

/** Values a provider state gave (its params, the state endpoint's answer, a jobId the runner made). */
export type StateValues = Readonly<Record<string, unknown>>;

/**
 * Which generators apply: `all` for a request before it is sent; `provider-state` for an
 * expected response, and for a request once its state is set up (its random values already made).
 */
export type GeneratorMode = 'all' | 'provider-state';

/**
 * The value a generator makes, or undefined to keep the example. A ProviderState expression is
 * `${name}` placeholders in text; one that is a single placeholder gives the value with its type.
 */
export function generate(generator: Generator, options: { values: StateValues; mode: GeneratorMode }): unknown {
  if (generator.type === 'ProviderState') return fromState(generator, options.values);
  if (options.mode === 'provider-state') return undefined;
  switch (generator.type) {
    case 'RandomInt':
      return generator.max - generator.min < 2 ** 48 ? randomInt(generator.min, generator.max + 1) : generator.min;
    case 'RandomDecimal':
      return Number((Math.random() * 10 ** Math.min(generator.digits, 6)).toFixed(Math.max(0, generator.digits - 6)));
    case 'RandomHexadecimal':
      return randomBytes(Math.ceil(generator.digits / 2))
        .toString('hex')
        .slice(0, generator.digits);
    case 'RandomString':
      return randomBytes(generator.size)
        .toString('base64')
        .replace(/[^A-Za-z0-9]/g, 'x')
        .slice(0, generator.size);
    case 'Uuid': {
      const uuid = randomUUID();
      if (generator.format === 'simple') return uuid.replace(/-/g, '');
      if (generator.format === 'upper-case-hyphenated') return uuid.toUpperCase();
      if (generator.format === 'URN') return `urn:uuid:${uuid}`;
      return uuid;
    }
    case 'Date':
    case 'Time':
    case 'DateTime':
      return generator.format.format(new Date());
    case 'RandomBoolean':
      return randomInt(0, 2) === 1;
    default:
      return undefined;
  }
}

function fromState(generator: Extract<Generator, { type: 'ProviderState' }>, values: StateValues): unknown {
  const whole = /^\$\{([^}]+)\}$/.exec(generator.expression);
  if (whole) {
    const value = values[whole[1]!.trim()];
    if (value === undefined) return undefined;
    return converted(value, generator.dataType);
  }
  let missing = false;
  const text = generator.expression.replace(/\$\{([^}]+)\}/g, (_, name: string) => {
    const value = values[name.trim()];
    if (value === undefined || (typeof value === 'object' && value !== null)) {
      missing = true;
      return '';
    }
    return String(value);
  });
  return missing ? undefined : converted(text, generator.dataType);
}

function converted(value: unknown, dataType: string | undefined): unknown {
  switch (dataType) {
    case 'INTEGER': {
      const number = Number(value);
      return Number.isInteger(number) ? number : value;
    }
    case 'DECIMAL':
    case 'FLOAT': {
      const number = Number(value);
      return Number.isFinite(number) ? number : value;
    }
    case 'BOOLEAN':
      return value === true || value === 'true';
    case 'STRING':
      return typeof value === 'string' ? value : JSON.stringify(value);
    default:
      return value;
  }
}

/** A copy of `value` with each body generator whose path names an existing node applied. */
export function applyBodyGenerators(
  value: unknown,
  generators: GeneratorSet['body'],
  options: { values: StateValues; mode: GeneratorMode; notes: string[] },
): unknown {
  let result = value;
  for (const { expression, generator } of generators) result = replaceAt(result, expression, [], generator, options);
  return result;
}

function replaceAt(
  node: unknown,
  expression: PathExpression,
  path: PathStep[],
  generator: Generator,
  options: { values: StateValues; mode: GeneratorMode; notes: string[] },
): unknown {
  const depth = path.length;
  if (depth === expression.tokens.length) {
    const made = generate(generator, { values: options.values, mode: options.mode });
    if (made === undefined && generator.type === 'ProviderState')
      options.notes.push(`the provider state gave no value for ${generator.expression}; the example value was kept`);
    return made === undefined ? node : made;
  }
  const token = expression.tokens[depth]!;
  // The same steps the matching rules take (path-expression.ts): `*` any step, names and indices by their text.
  const takes = (step: PathStep) =>
    token.kind === 'any-field' ||
    (token.kind === 'any-index' && (typeof step === 'number' || /^\d+$/.test(step))) ||
    (token.kind === 'field' && String(step) === token.name) ||
    (token.kind === 'index' && String(step) === String(token.index));
  if (Array.isArray(node))
    return node.map((item, index) => (takes(index) ? replaceAt(item, expression, [...path, index], generator, options) : item));
  if (node && typeof node === 'object')
    return Object.fromEntries(
      Object.entries(node).map(([key, item]) => [key, takes(key) ? replaceAt(item, expression, [...path, key], generator, options) : item]),
    );
  return node;
}
