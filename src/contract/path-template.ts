/**
 * @module contract/path-template
 * The one reading of an OpenAPI path template (`/v0/jobs/{jobId}`) in this project: matching a
 * request's path against it, capturing each parameter, and filling it with values. A template
 * expression `{name}` stands for one non-empty path segment, or part of one (`/files/{name}.json`):
 * it never spans a `/`. Every other character matches itself, regex metacharacters included.
 *
 * Used by the engine's router, the proxy's request rules and the conformance runner, so the
 * three cannot disagree about which operation a path belongs to. Imports nothing.
 */

/** A template expression: `{` a non-empty name without `}` `}`. */
const expression = /\{([^}]+)\}/g;

/** A path template compiled once for matching. */
export interface PathTemplate {
  /** The template as written in the document. */
  readonly template: string;
  /** The parameters' names, in the order they appear. */
  readonly names: readonly string[];
  /** Whether `path` (without its query) fits the template. */
  test(path: string): boolean;
  /**
   * The parameters' values in `path`, as they appear there (still percent-encoded: decoding, and
   * what to do when it fails, is the caller's), or undefined when `path` does not fit.
   */
  match(path: string): Readonly<Record<string, string>> | undefined;
}

/** Compiles `template` (an OpenAPI path such as `/v0/jobs/{jobId}`) into a matcher. */
export function compilePathTemplate(template: string): PathTemplate {
  const names: string[] = [];
  let source = '';
  let last = 0;
  for (const found of template.matchAll(expression)) {
    source += escapeRegExp(template.slice(last, found.index));
    source += '([^/]+)';
    names.push(found[1]!);
    last = found.index + found[0].length;
  }
  source += escapeRegExp(template.slice(last));
  const pattern = new RegExp(`^${source}$`);
  return {
    template,
    names,
    test: (path) => pattern.test(path),
    match(path) {
      const found = pattern.exec(path);
      if (!found) return undefined;
      // fromEntries defines own properties, so even a parameter named __proto__ is kept as data.
      return Object.fromEntries(names.map((name, index) => [name, found[index + 1]!]));
    },
  };
}

/**
 * `template` with each `{name}` replaced by `value(name)`, inserted as given: encoding the
 * value as a path segment is the caller's.
 */
export function fillPathTemplate(template: string, value: (name: string) => string): string {
  return template.replace(expression, (_, name: string) => value(name));
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
