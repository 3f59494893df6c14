/**
 * Failures as values: one key under which duplicates merge (check, operation, title), and one
 * order (required first, then check and operation, then as found) that the judge, every
 * reporter and `conformance replay` share.
 */
import { expect, it } from 'vitest';
import { compareFailures, type Failure, FailureGroups, failureKey, mergeFailures } from '../../src/conformance/failures.js';

function failure(overrides: Partial<Failure>): Failure {
  return {
    check: 'not_a_server_error',
    severity: 'required',
    operation: 'createEvaluation',
    title: 'server error 500',
    expected: 'no 5xx for this request',
    received: '500',
    input: 'valid input',
    curl: 'curl -i http://127.0.0.1:1/v0/evaluations',
    exchange: 1,
    occurrences: 1,
    ...overrides,
  };
}

it('gives failures of one check, operation and title one key, whatever their input or exchange', () => {
  expect(failureKey(failure({ exchange: 3, input: 'a' }))).toBe(failureKey(failure({ exchange: 9, input: 'b' })));
  expect(failureKey(failure({ title: 'server error 502' }))).not.toBe(failureKey(failure({})));
  expect(failureKey(failure({ operation: 'getJob' }))).not.toBe(failureKey(failure({})));
  // No separator a title could forge: the parts are kept apart.
  expect(failureKey(failure({ operation: 'a', title: 'b c' }))).not.toBe(failureKey(failure({ operation: 'a b', title: 'c' })));
});

it('orders failures required first, then by check and operation, then as found', () => {
  const shuffled = [
    failure({ severity: 'advisory', check: 'error_code_documented', exchange: 2 }),
    failure({ check: 'response_schema_conformance', operation: 'getJob', exchange: 5 }),
    failure({ check: 'not_a_server_error', operation: 'verifyReport', exchange: 4 }),
    failure({ check: 'not_a_server_error', operation: 'getJob', title: 'server error 503', exchange: 8 }),
    failure({ check: 'not_a_server_error', operation: 'getJob', title: 'server error 500', exchange: 9 }),
    failure({ check: 'not_a_server_error', operation: 'getJob', title: 'server error 500', exchange: 7 }),
  ];
  expect(
    [...shuffled].sort(compareFailures).map((one) => `${one.severity} ${one.check} ${one.operation} ${one.title} #${one.exchange}`),
  ).toEqual([
    'required not_a_server_error getJob server error 500 #7',
    'required not_a_server_error getJob server error 503 #8',
    'required not_a_server_error getJob server error 500 #9',
    'required not_a_server_error verifyReport server error 500 #4',
    'required response_schema_conformance getJob server error 500 #5',
    'advisory error_code_documented createEvaluation server error 500 #2',
  ]);
});

it('merges duplicates into the earliest, counting every occurrence', () => {
  const merged = mergeFailures([
    failure({ exchange: 12, occurrences: 2, input: 'later' }),
    failure({ operation: 'getJob', exchange: 30 }),
    failure({ exchange: 4, occurrences: 3, input: 'earliest' }),
  ]);
  expect(merged.map((one) => [one.operation, one.exchange, one.input, one.occurrences])).toEqual([
    ['createEvaluation', 4, 'earliest', 5],
    ['getJob', 30, 'valid input', 1],
  ]);
});

it('builds only the first failure of each key as it is found, and lists the groups in order', () => {
  const groups = new FailureGroups();
  let built = 0;
  const add = (operation: string, exchange: number) =>
    groups.add({ check: 'not_a_server_error', operation, title: 'server error 500' }, () => {
      built += 1;
      return failure({ operation, exchange });
    });
  add('verifyReport', 1);
  add('getJob', 2);
  add('verifyReport', 3);
  expect(built).toBe(2);
  expect(groups.list().map((one) => [one.operation, one.exchange, one.occurrences])).toEqual([
    ['getJob', 2, 1],
    ['verifyReport', 1, 2],
  ]);
});
