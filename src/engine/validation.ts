/**
 * @module engine/validation
 * Stage 2b: validates inputs with the contract's zod schemas and collects every problem as a
 * diagnostic instead of stopping at the first. Whether the answer is 400 or 413 is decided
 * from the diagnostics by the operation (docs/assumptions.md A-2).
 */
import type * as z from 'zod';

export interface Diagnostic {
  /** Where, as a JSON Pointer into the body, or a header/parameter name. */
  readonly path: string;
  readonly message: string;
  /** True when a maximum of section 8 is exceeded. */
  readonly overMaximum: boolean;
  /**
   * The JSON Schema keyword broken (required, type, maxLength…), as the runner's negative probes
   * name it: a profile may answer each apart (src/profile/entry-parts.ts). Absent when zod's
   * issue names none of them (a number out of range, a union no member fits).
   */
  readonly constraint?: string;
}

function pointer(prefix: string, path: readonly PropertyKey[]): string {
  return prefix + path.map((part) => `/${String(part).replaceAll('~', '~0').replaceAll('/', '~1')}`).join('');
}

function messageOf(issue: z.core.$ZodIssue): string {
  switch (issue.code) {
    case 'invalid_type':
      return /received undefined/.test(issue.message)
        ? 'is required'
        : `must be ${issue.expected === 'int' ? 'an integer' : `a ${issue.expected}`}`;
    case 'too_big':
      return issue.origin === 'array' ? `must have at most ${String(issue.maximum)} items` : issue.message;
    case 'too_small':
      return issue.origin === 'array' ? `must have at least ${String(issue.minimum)} item${issue.minimum === 1 ? '' : 's'}` : issue.message;
    case 'invalid_value':
      return `must be one of ${issue.values.map((value) => JSON.stringify(value)).join(', ')}`;
    default:
      return issue.message;
  }
}

/** Whether the value at `path` is left out of an object that holds it (the last key absent). */
function absentAt(root: unknown, path: readonly PropertyKey[]): boolean {
  if (path.length === 0) return false;
  let parent: unknown = root;
  for (const key of path.slice(0, -1)) {
    if (!parent || typeof parent !== 'object') return false;
    parent = (parent as Record<PropertyKey, unknown>)[key as string];
  }
  return !!parent && typeof parent === 'object' && !Array.isArray(parent) && !Object.hasOwn(parent, path.at(-1) as string);
}

/** The JSON Schema keyword a zod issue stands for, when it is one of those the runner's probes break. */
function constraintOf(issue: z.core.$ZodIssue): string | undefined {
  switch (issue.code) {
    case 'invalid_type':
      return /received undefined/.test(issue.message) ? 'required' : 'type';
    case 'too_big':
      return issue.origin === 'array' ? 'maxItems' : issue.origin === 'string' ? 'maxLength' : undefined;
    case 'too_small':
      return issue.origin === 'array' ? 'minItems' : issue.origin === 'string' ? 'minLength' : undefined;
    case 'invalid_value':
      return 'enum';
    case 'invalid_format':
      return issue.format === 'regex' ? 'pattern' : 'format';
    case 'custom':
      // A refinement says which keyword it checks (src/contract: a document's pattern, a uri).
      return typeof issue.params?.constraint === 'string' ? issue.params.constraint : undefined;
    default:
      return undefined;
  }
}

/** Every problem zod finds in `value`, as diagnostics (empty when valid). */
export function diagnose(options: { schema: z.ZodType; value: unknown; prefix?: string }): Diagnostic[] {
  const result = options.schema.safeParse(options.value);
  if (result.success) return [];
  const prefix = options.prefix ?? '';
  return diagnosticsOf(result.error.issues, prefix, [], options.value);
}

/**
 * A union's failure (a type list such as `[string, "null"]`) is read through the one member
 * whose type the value has: a 9-character string against `[string, null]` with maxLength 8 is
 * over a maximum (413 on createEvaluation), not a bare "invalid input".
 */
function diagnosticsOf(issues: readonly z.core.$ZodIssue[], prefix: string, base: readonly PropertyKey[], root: unknown): Diagnostic[] {
  return issues.flatMap((found): Diagnostic[] => {
    const issue = { ...found, path: [...base, ...found.path] } as z.core.$ZodIssue;
    if (issue.code === 'invalid_union' && 'errors' in issue) {
      const typed = issue.errors.filter((branch) => !branch.every((inner) => inner.code === 'invalid_type' && inner.path.length === 0));
      if (typed.length === 1) return diagnosticsOf(typed[0]!, prefix, issue.path, root);
    }
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({
        path: pointer(prefix, [...issue.path, key]),
        message: 'is not a property of the contract',
        overMaximum: false,
        constraint: 'additionalProperties',
      }));
    }
    // A value left out is `required` whatever zod calls it (a missing discriminator is "must be one of").
    const constraint = absentAt(root, issue.path) ? 'required' : constraintOf(issue);
    return [
      {
        path: pointer(prefix, issue.path) || prefix || '/',
        message: messageOf(issue),
        overMaximum: issue.code === 'too_big',
        ...(constraint ? { constraint } : {}),
      },
    ];
  });
}

/** "2 problems: /a must …; /b is …" — what a developer reads in the Error message. */
export function describeDiagnostics(diagnostics: readonly Diagnostic[]): string {
  const lines = diagnostics.slice(0, 10).map((diagnostic) => `${diagnostic.path || '(body)'} ${diagnostic.message}`);
  const more = diagnostics.length > 10 ? `; and ${diagnostics.length - 10} more` : '';
  const head = diagnostics.length === 1 ? '' : `${diagnostics.length} problems: `;
  return `${head}${lines.join('; ')}${more}.`;
}
