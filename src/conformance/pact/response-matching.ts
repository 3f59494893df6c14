/**
 * @module conformance/pact/response-matching
 * An answer against one interaction's expected response: the status (or its statusCode rule),
 * each expected header (present; its rule, else its value — Content-Type by media type and the
 * parameters the pact names, others as comma lists), and the body (JSON under the pact's rules,
 * text by its `$` rule or equality). Each difference is a Mismatch naming where it is.
 */
import type { ReceivedResponse } from '../exchange.js';
import { type Mismatch, matchJsonBody, matchValue } from './body-matching.js';
import { essenceOf, shown } from './matchers.js';
import type { PactBody, ResponseRules } from './pact-file.js';

/** The response an interaction expects once its ProviderState generators are applied. */
export interface ExpectedResponse {
  readonly status: number;
  readonly headers: readonly (readonly [string, string])[];
  readonly body?: PactBody;
  readonly rules: ResponseRules;
}

function parameters(contentType: string): Map<string, string> {
  const found = new Map<string, string>();
  for (const part of contentType.split(';').slice(1)) {
    const [name, ...value] = part.split('=');
    if (name?.trim())
      found.set(
        name.trim().toLowerCase(),
        value
          .join('=')
          .trim()
          .replace(/^"(.*)"$/, '$1')
          .toLowerCase(),
      );
  }
  return found;
}

function listOf(value: string): string[] {
  return value
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
}

/** A header without a rule: Content-Type by media type and named parameters, others as equal comma lists. */
function headerMatches(name: string, expected: string, actual: string): boolean {
  if (name.toLowerCase() === 'content-type') {
    if (essenceOf(expected) !== essenceOf(actual)) return false;
    const received = parameters(actual);
    return [...parameters(expected)].every(([parameter, value]) => received.get(parameter) === value);
  }
  const want = listOf(expected);
  const got = listOf(actual);
  return want.length === got.length && want.every((item, index) => item === got[index]);
}

function statusMismatch(expected: ExpectedResponse, status: number): Mismatch | undefined {
  if (expected.rules.status)
    return matchValue({ rules: expected.rules.status, expected: expected.status, actual: status, label: 'status', source: 'json' });
  return status === expected.status ? undefined : { path: 'status', expected: String(expected.status), received: String(status) };
}

function headerMismatches(expected: ExpectedResponse, response: ReceivedResponse): Mismatch[] {
  const mismatches: Mismatch[] = [];
  const received = new Map(Object.entries(response.headers).map(([name, value]) => [name.toLowerCase(), value]));
  for (const [name, value] of expected.headers) {
    const label = `header ${name}`;
    const actual = received.get(name.toLowerCase());
    if (actual === undefined) {
      mismatches.push({ path: label, expected: `present: ${shown(value)}`, received: '(absent)' });
      continue;
    }
    const rules = expected.rules.headers.get(name.toLowerCase());
    if (rules) {
      const mismatch = matchValue({ rules, expected: value, actual, label, source: 'text', contentType: response.contentType });
      if (mismatch) mismatches.push(mismatch);
    } else if (!headerMatches(name, value, actual)) mismatches.push({ path: label, expected: shown(value), received: shown(actual) });
  }
  return mismatches;
}

function bodyMismatches(expected: ExpectedResponse, response: ReceivedResponse): Mismatch[] {
  const body = expected.body;
  if (!body) return [];
  if (body.kind === 'json') {
    if (response.json === undefined)
      return [
        {
          path: 'body',
          expected: `a JSON body: ${shown(body.value)}`,
          received: response.bodyText.trim() === '' ? '(no body)' : `not JSON: ${shown(response.bodyText.slice(0, 200))}`,
        },
      ];
    return matchJsonBody({ expected: body.value, actual: response.json, rules: expected.rules.body, contentType: response.contentType });
  }
  const rootRules = expected.rules.body.entries.find((entry) => entry.expression.tokens.length === 0)?.rules;
  if (rootRules) {
    const mismatch = matchValue({
      rules: rootRules,
      expected: body.text,
      actual: response.bodyText,
      label: 'body',
      source: 'text',
      contentType: response.contentType,
    });
    return mismatch ? [mismatch] : [];
  }
  return response.bodyText === body.text ? [] : [{ path: 'body', expected: shown(body.text), received: shown(response.bodyText) }];
}

/** Every difference between the answer and the expected response, status first. */
export function matchResponse(expected: ExpectedResponse, response: ReceivedResponse): Mismatch[] {
  const status = statusMismatch(expected, response.status);
  return [...(status ? [status] : []), ...headerMismatches(expected, response), ...bodyMismatches(expected, response)];
}
