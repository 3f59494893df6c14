/**
 * @module conformance/generators/path-values
 * Path parameter values with reserved or encoded characters (issue 23): a '/' or '\' inside,
 * '%2F' as text, NUL, CR LF, dot segments behind encoded slashes, '?', '#' and ';', a value at
 * the maximum length made of such characters, and the dot segments '..' and '.' themselves.
 * Each is a valid value of a string parameter without a pattern (lengths 1 to 128 in this
 * contract), so a server has no such resource: it must answer as for any unknown one, never 5xx.
 */
import type { JsonSchema } from '../../openapi/document.js';

export interface PathValue {
  /** The parameter's value, before percent-encoding. */
  readonly value: string;
  /** What it holds and how it is sent, for a report's "input". */
  readonly description: string;
  /**
   * A whole dot segment ('.' or '..'), sent as it is: URL resolution (RFC 3986 section 5.2.4)
   * removes it, so the request may name a path outside the contract (`/v0/jobs/..` is `/v0/`).
   */
  readonly dotSegment?: true;
}

/** The characters a value at the maximum length is made of: each one a path or decoding hazard. */
const longPattern = ['/', '\\', '%', '.', '\u{1F600}'];

/**
 * The odd values of a path parameter: those its schema takes (`accepts`), each once. A
 * parameter whose pattern refuses them all gets none (its invalid values are mutations).
 */
export function oddPathValues(schema: JsonSchema, accepts: (value: string) => boolean): PathValue[] {
  const max = typeof schema.maxLength === 'number' ? schema.maxLength : 128;
  const long = Array.from({ length: max }, (_, index) => longPattern[index % longPattern.length]).join('');
  const candidates: PathValue[] = [
    { value: 'eh-unknown/job', description: "a '/' inside, sent as %2F" },
    { value: 'eh-unknown\\job', description: "a '\\' inside, sent as %5C" },
    { value: 'eh-unknown%2Fjob', description: "'%2F' as text, sent double-encoded as %252F" },
    { value: 'eh-unknown\u0000job', description: 'NUL inside, sent as %00' },
    { value: 'eh-unknown\r\njob', description: 'CR LF inside, sent as %0D%0A' },
    {
      value: '../../health',
      description: "'../../health', sent as ..%2F..%2Fhealth (a server that decodes before it routes reads /health)",
    },
    { value: 'eh-unknown?x=1#y;z', description: "'?', '#' and ';' inside, sent as %3F, %23 and %3B" },
    { value: long, description: `${max} characters (the maximum) of '/', '\\', '%', '.' and U+1F600, each percent-encoded` },
    { value: '..', description: "the dot segment '..', sent as it is", dotSegment: true },
    { value: '.', description: "the dot segment '.', sent as it is", dotSegment: true },
  ];
  const seen = new Set<string>();
  return candidates.filter((candidate) => {
    if (seen.has(candidate.value) || !accepts(candidate.value)) return false;
    seen.add(candidate.value);
    return true;
  });
}
