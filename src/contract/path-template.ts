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

/**
 * Compiles `template` (an OpenAPI path such as `/v0/jobs/{jobId}`) into a matcher whose time is
 * linear in the path's length. A template with at most one expression per segment becomes one
 * RegExp: each `([^/]+)` is bounded by the next `/`, so V8 backtracks at most once per character
 * of the literal after it. Two or more expressions in one segment (`/{a}{b}…{l}!`) would
 * backtrack on every way of splitting the segment (a 40-character path held the event loop for
 * seconds), so such a template is matched segment by segment instead (`segmentMatcher`).
 */
export function compilePathTemplate(template: string): PathTemplate {
  const names: string[] = [];
  const parts: Part[] = [];
  let last = 0;
  for (const found of template.matchAll(expression)) {
    if (found.index > last) parts.push(template.slice(last, found.index));
    parts.push({ index: names.length });
    names.push(found[1]!);
    last = found.index + found[0].length;
  }
  if (last < template.length) parts.push(template.slice(last));
  const segments = splitSegments(parts);
  const crowded = segments.some((segment) => segment.filter((part) => typeof part !== 'string').length > 1);
  const values = crowded ? segmentValues(segments, names.length) : regexValues(parts);
  return {
    template,
    names,
    test: (path) => values(path) !== undefined,
    match(path) {
      const found = values(path);
      if (!found) return undefined;
      // fromEntries defines own properties, so even a parameter named __proto__ is kept as data.
      return Object.fromEntries(names.map((name, index) => [name, found[index]!]));
    },
  };
}

/** A literal run of the template, or the expression with this index. */
type Part = string | { readonly index: number };

/** The parameters' values in `path` by index, or undefined when it does not fit. */
type Values = (path: string) => readonly string[] | undefined;

function regexValues(parts: readonly Part[]): Values {
  const source = parts.map((part) => (typeof part === 'string' ? escapeRegExp(part) : '([^/]+)')).join('');
  const pattern = new RegExp(`^${source}$`);
  return (path) => pattern.exec(path)?.slice(1);
}

/** The parts between the template's slashes: an expression never spans one, so a slash of the path matches a slash of the template. */
function splitSegments(parts: readonly Part[]): Part[][] {
  const segments: Part[][] = [[]];
  for (const part of parts) {
    if (typeof part !== 'string') {
      segments.at(-1)!.push(part);
      continue;
    }
    const pieces = part.split('/');
    pieces.forEach((piece, index) => {
      if (index > 0) segments.push([]);
      if (piece !== '') segments.at(-1)!.push(piece);
    });
  }
  return segments;
}

function segmentValues(segments: readonly Part[][], count: number): Values {
  return (path) => {
    const pieces = path.split('/');
    if (pieces.length !== segments.length) return undefined;
    const values: string[] = new Array(count);
    for (let index = 0; index < segments.length; index += 1) if (!segmentMatch(segments[index]!, pieces[index]!, values)) return undefined;
    return values;
  };
}

/**
 * Fits one segment of the path to one of the template, as the RegExp would (each expression
 * non-empty and as long as the rest allows), in time proportional to the segment's length times
 * the template segment's parts: `fits[i][p]` says whether parts i… match the text from p, filled
 * from the last part back; then each expression takes the longest text after which the rest fits.
 */
function segmentMatch(parts: readonly Part[], text: string, values: string[]): boolean {
  const width = text.length + 1;
  const fits = new Uint8Array((parts.length + 1) * width);
  fits[parts.length * width + text.length] = 1;
  for (let i = parts.length - 1; i >= 0; i -= 1) {
    const part = parts[i]!;
    const row = i * width;
    const next = row + width;
    if (typeof part === 'string') {
      for (let p = 0; p + part.length <= text.length; p += 1)
        if (fits[next + p + part.length] && text.startsWith(part, p)) fits[row + p] = 1;
    } else {
      // Some end e > p after which the rest fits: a running "any from here on" of the next row.
      let any = 0;
      for (let p = text.length - 1; p >= 0; p -= 1) {
        any |= fits[next + p + 1]!;
        fits[row + p] = any;
      }
    }
  }
  if (!fits[0]) return false;
  let p = 0;
  for (let i = 0; i < parts.length; i += 1) {
    const part = parts[i]!;
    if (typeof part === 'string') {
      p += part.length;
      continue;
    }
    let end = text.length;
    while (!fits[(i + 1) * width + end]) end -= 1;
    values[part.index] = text.slice(p, end);
    p = end;
  }
  return true;
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
