/**
 * @module contract/document-budget
 * The budgets of a document read from outside (an OpenAPI, Arazzo, scenario, profile, config or
 * pact document), and the checks that hold a parsed value to them, in one place. Isomorphic: the
 * Node loader (src/documents) checks a file's value right after parsing it, and the engine checks
 * a document handed to `createMockEngine({ spec })` as an object, which no loader has seen.
 *
 * Every walk here is a loop over an explicit stack, never recursion: a value nested 100,000 deep
 * is what these checks exist to refuse, so they must not themselves run out of stack on it.
 */

/** The bounds of one document and of what it refers to (docs/assumptions.md A-30). */
export const documentLimits = {
  /** Bytes of one file or answer, checked before any parser sees it (`--max-document-bytes`). */
  maxBytes: 16 * 1024 * 1024,
  /** Alias uses in one YAML text, by the yaml package's count (it weighs each by what it expands to). */
  maxYamlAliases: 100,
  /** Levels of nesting of a parsed value (a valid OpenAPI document of this project nests about 20). */
  maxDepth: 256,
  /** Values (objects, arrays and scalars) in one parsed document. */
  maxNodes: 2_000_000,
  /** Files and answers one document may draw in through `$ref`s, the named one included. */
  maxFiles: 256,
  /** The whole reading: the named document, every `$ref` followed, validation. */
  timeBudgetMs: 30_000,
} as const;

/**
 * The bounds of one schema the mock converts into a validator (src/contract/schema-to-zod.ts).
 * A schema is converted once per place it is used, so a small document that refers to one large
 * schema from many places is held to this too.
 */
export const schemaLimits = {
  /** Values of one `enum`. */
  maxEnumValues: 4096,
  /** Properties of one object schema. */
  maxProperties: 2048,
  /** Schema objects visited converting one schema (shared ones counted at each use). */
  maxNodes: 100_000,
} as const;

/** A value over a budget: where (a JSON pointer into the document) and why. */
export interface BudgetProblem {
  readonly pointer: string;
  readonly problem: string;
}

/** One JSON pointer token (RFC 6901). */
export function pointerToken(key: string | number): string {
  return String(key).replaceAll('~', '~0').replaceAll('/', '~1');
}

/**
 * A place in a walk: its key and the place it is in. The walks below visit every value of
 * documents of millions of values, so a pointer is written only for the place a problem is
 * found, not built for every value on the way.
 */
export interface WalkPlace {
  readonly parent: WalkPlace | undefined;
  readonly key: string;
}

/** The JSON pointer of `place` (RFC 6901), `base` before it. */
export function placePointer(place: WalkPlace | undefined, base = ''): string {
  const tokens: string[] = [];
  for (let at = place; at !== undefined; at = at.parent) tokens.push(pointerToken(at.key));
  return tokens.length === 0 ? base : `${base}/${tokens.reverse().join('/')}`;
}

/** The first bound a value's shape passes: which, the bound, and the place where it was passed. */
export interface ShapeBreach {
  readonly bound: 'depth' | 'values';
  /** The bound's value (`maxDepth` or `maxNodes`). */
  readonly limit: number;
  readonly place: WalkPlace | undefined;
}

/** The bounds of a shape walk; each reader keeps its own. */
export interface ShapeLimits {
  /** Levels of nesting below the value (the value itself is level 0). Default documentLimits.maxDepth. */
  readonly maxDepth?: number;
  /** Values counted, objects, arrays and scalars alike. Default documentLimits.maxNodes. */
  readonly maxNodes?: number;
  /**
   * Visit each object once (a value handed over already parsed, whose shared or cyclic objects
   * are measured by their shape), rather than at each place it is reached (a parsed text, as a
   * serializer would write it). A value that contains itself then passes a bound, as it would
   * when written out.
   */
  readonly eachObjectOnce?: boolean;
}

/**
 * The one bounded walk of a value's shape, for every reader of a document (the loader, the
 * engine's `spec`, profiles, workflow documents): whether `value` nests deeper than `maxDepth`
 * or holds more than `maxNodes` values, and the first bound passed. Each caller words its own
 * message from the breach.
 */
export function shapeBreach(value: unknown, limits: ShapeLimits = {}): ShapeBreach | undefined {
  const maxDepth = limits.maxDepth ?? documentLimits.maxDepth;
  const maxNodes = limits.maxNodes ?? documentLimits.maxNodes;
  const seen = limits.eachObjectOnce ? new Set<object>() : undefined;
  let nodes = 0;
  const stack: { value: unknown; place: WalkPlace | undefined; depth: number }[] = [{ value, place: undefined, depth: 0 }];
  while (stack.length > 0) {
    const next = stack.pop()!;
    nodes += 1;
    if (nodes > maxNodes) return { bound: 'values', limit: maxNodes, place: next.place };
    if (next.depth > maxDepth) return { bound: 'depth', limit: maxDepth, place: next.place };
    if (next.value === null || typeof next.value !== 'object') continue;
    if (seen) {
      if (seen.has(next.value)) continue;
      seen.add(next.value);
    }
    for (const [key, child] of Object.entries(next.value)) {
      // A leaf is counted here, with no place of its own unless it is where a bound is passed.
      if ((child === null || typeof child !== 'object') && next.depth + 1 <= maxDepth) {
        nodes += 1;
        if (nodes > maxNodes) return { bound: 'values', limit: maxNodes, place: { parent: next.place, key } };
        continue;
      }
      stack.push({ value: child, place: { parent: next.place, key }, depth: next.depth + 1 });
    }
  }
  return undefined;
}

/** A breach as the document readers say it, with its pointer. */
function documentProblem(breach: ShapeBreach | undefined): BudgetProblem | undefined {
  if (!breach) return undefined;
  const problem =
    breach.bound === 'values'
      ? `the document holds more than ${breach.limit} values`
      : `the document nests more than ${breach.limit} levels deep`;
  return { pointer: placePointer(breach.place), problem };
}

/**
 * Whether `value` nests deeper than `maxDepth` or holds more than `maxNodes` values; the first
 * bound passed, with the pointer where it was passed. A value reached twice (a YAML alias, an
 * object shared after dereferencing) counts at each place, as a serializer would write it; a
 * value that contains itself is a cycle, said as such.
 */
export function shapeProblem(
  value: unknown,
  limits: { readonly maxDepth?: number; readonly maxNodes?: number } = {},
): BudgetProblem | undefined {
  return documentProblem(shapeBreach(value, limits));
}

/**
 * Whether an object handed over already parsed (`createMockEngine({ spec })`) nests deeper than
 * `maxDepth` or holds more than `maxNodes` distinct values, walked without recursion. Each object
 * is visited once, so a dereferenced document whose schemas recurse (a cycle of objects) is
 * measured by its shape, not unrolled; what comes after (resolving `$ref`s, converting schemas)
 * recurses no deeper than this bound.
 */
export function objectShapeProblem(
  value: unknown,
  limits: { readonly maxDepth?: number; readonly maxNodes?: number } = {},
): BudgetProblem | undefined {
  return documentProblem(shapeBreach(value, { ...limits, eachObjectOnce: true }));
}

/**
 * The pointer of a place where `value` contains itself, or undefined. An example is data sent as
 * an answer: a cycle there (an example's `$ref`s that lead back to it) cannot be written as JSON,
 * and every call of its operation would fail. Schemas may recurse; examples may not.
 */
export function cyclePointer(value: unknown, base = ''): string | undefined {
  // Depth-first with the objects on the current path: a child that is on it closes a cycle.
  const onPath = new Set<object>();
  const finished = new Set<object>();
  const stack: { value: object; pointer: string; leaving: boolean }[] = [];
  if (value !== null && typeof value === 'object') stack.push({ value, pointer: base, leaving: false });
  while (stack.length > 0) {
    const next = stack.pop()!;
    if (next.leaving) {
      onPath.delete(next.value);
      finished.add(next.value);
      continue;
    }
    if (finished.has(next.value)) continue;
    onPath.add(next.value);
    stack.push({ ...next, leaving: true });
    for (const [key, child] of Object.entries(next.value)) {
      if (child === null || typeof child !== 'object') continue;
      const pointer = `${next.pointer}/${pointerToken(key)}`;
      if (onPath.has(child)) return pointer;
      if (!finished.has(child)) stack.push({ value: child, pointer, leaving: false });
    }
  }
  return undefined;
}

/**
 * Whether a schema passes schemaLimits before it is converted: an `enum` too long, an object with
 * too many properties, or too many schema objects in all (each use of a shared one counted; a
 * recursive one is counted once per path, up to the bound). The pointer starts at `base`.
 */
export function schemaBudgetProblem(schema: unknown, base: string): BudgetProblem | undefined {
  let nodes = 0;
  const stack: { value: unknown; pointer: string; onPath: readonly object[] }[] = [{ value: schema, pointer: base, onPath: [] }];
  while (stack.length > 0) {
    const next = stack.pop()!;
    const value = next.value;
    if (value === null || typeof value !== 'object') continue;
    // A recursive schema comes back to an object already on its path: converted lazily or refused
    // by the converter's own depth bound, not expanded here.
    if (next.onPath.includes(value)) continue;
    nodes += 1;
    if (nodes > schemaLimits.maxNodes)
      return { pointer: next.pointer, problem: `the schema holds more than ${schemaLimits.maxNodes} schema objects, counting each use` };
    const record = value as Record<string, unknown>;
    if (Array.isArray(record.enum) && record.enum.length > schemaLimits.maxEnumValues)
      return {
        pointer: `${next.pointer}/enum`,
        problem: `${record.enum.length} values; an enum of at most ${schemaLimits.maxEnumValues} is served`,
      };
    const properties = record.properties;
    if (properties !== null && typeof properties === 'object') {
      const names = Object.keys(properties);
      if (names.length > schemaLimits.maxProperties)
        return {
          pointer: `${next.pointer}/properties`,
          problem: `${names.length} properties; an object schema of at most ${schemaLimits.maxProperties} is served`,
        };
    }
    const onPath = next.onPath.length < 128 ? [...next.onPath, value] : next.onPath;
    for (const [key, child] of Object.entries(record)) {
      // Values of enum, const, examples and defaults are data, not schemas: not walked.
      if (key === 'enum' || key === 'const' || key === 'example' || key === 'examples' || key === 'default') continue;
      if (child !== null && typeof child === 'object')
        stack.push({ value: child, pointer: `${next.pointer}/${pointerToken(key)}`, onPath });
    }
  }
  return undefined;
}

/**
 * The first schema of a whole OpenAPI document (any object with `enum` or `properties`, outside
 * example and default values) over schemaLimits' enum or property counts. Checked on each file
 * as soon as it is parsed, before the validator and the converters walk it: swagger-parser's
 * validation of a 500,000-value enum alone took tens of seconds.
 */
export function schemaSizeProblem(document: unknown): BudgetProblem | undefined {
  const stack: { value: unknown; place: WalkPlace | undefined }[] = [{ value: document, place: undefined }];
  const seen = new Set<object>();
  while (stack.length > 0) {
    const next = stack.pop()!;
    const value = next.value;
    if (value === null || typeof value !== 'object' || seen.has(value)) continue;
    seen.add(value);
    const record = value as Record<string, unknown>;
    if (!Array.isArray(value)) {
      if (Array.isArray(record.enum) && record.enum.length > schemaLimits.maxEnumValues)
        return {
          pointer: `${placePointer(next.place)}/enum`,
          problem: `${record.enum.length} values; an enum of at most ${schemaLimits.maxEnumValues} is read`,
        };
      const properties = record.properties;
      if (properties !== null && typeof properties === 'object' && !Array.isArray(properties)) {
        const count = Object.keys(properties).length;
        if (count > schemaLimits.maxProperties)
          return {
            pointer: `${placePointer(next.place)}/properties`,
            problem: `${count} properties; an object schema of at most ${schemaLimits.maxProperties} is read`,
          };
      }
    }
    for (const [key, child] of Object.entries(record)) {
      // Example values are data; `default` is not skipped, since a Responses object names a response so.
      if (key === 'example' || key === 'examples' || key === 'const') continue;
      if (child !== null && typeof child === 'object') stack.push({ value: child, place: { parent: next.place, key } });
    }
  }
  return undefined;
}
