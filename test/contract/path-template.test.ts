/**
 * The one path-template matcher (src/contract/path-template.ts): what fits a template, what
 * each parameter captures, and filling a template.
 */
import { expect, it } from 'vitest';
import { compilePathTemplate, fillPathTemplate } from '../../src/contract/path-template.js';

it.each([
  ['/health', '/health', {}],
  ['/v0/jobs/{jobId}', '/v0/jobs/job_1', { jobId: 'job_1' }],
  ['/v0/jobs/{jobId}', '/v0/jobs/a%2Fb', { jobId: 'a%2Fb' }],
  ['/v0/jobs/{jobId}', '/v0/jobs/%7Bx%7D', { jobId: '%7Bx%7D' }],
  ['/orgs/{org}/jobs/{jobId}', '/orgs/o/jobs/j', { org: 'o', jobId: 'j' }],
  ['/files/{name}.json', '/files/report.v2.json', { name: 'report.v2' }],
  ['/a+b/(c)/{id}', '/a+b/(c)/7', { id: '7' }],
  ['/price/$1/{id}', '/price/$1/7', { id: '7' }],
] as const)('matches %s against %s', (template, path, parameters) => {
  const compiled = compilePathTemplate(template);
  expect(compiled.test(path)).toBe(true);
  expect(compiled.match(path)).toEqual(parameters);
});

it.each([
  ['/v0/jobs/{jobId}', '/v0/jobs/', 'an empty parameter'],
  ['/v0/jobs/{jobId}', '/v0/jobs/a/b', 'a parameter spanning two segments'],
  ['/v0/jobs/{jobId}', '/v0/jobs/a/', 'a trailing slash'],
  ['/v0/jobs/{jobId}', '/v0/jobs', 'a missing segment'],
  ['/v0/jobs/{jobId}', '/V0/jobs/a', 'another case'],
  ['/v0/jobs/{jobId}', 'x/v0/jobs/a', 'a prefix'],
  ['/files/{name}.json', '/files/reportXjson', 'a dot matched as any character'],
  ['/a+b/{id}', '/aab/7', 'a plus matched as a repetition'],
  ['/health', '/health/', 'a static path with a trailing slash'],
] as const)('does not match %s against %s (%s)', (template, path, _why) => {
  const compiled = compilePathTemplate(template);
  expect(compiled.test(path)).toBe(false);
  expect(compiled.match(path)).toBeUndefined();
});

it('lists the parameters in the order they appear', () => {
  expect(compilePathTemplate('/orgs/{org}/jobs/{jobId}').names).toEqual(['org', 'jobId']);
  expect(compilePathTemplate('/health').names).toEqual([]);
});

it('keeps a parameter named __proto__ as data', () => {
  const match = compilePathTemplate('/x/{__proto__}').match('/x/1');
  expect(Object.getOwnPropertyDescriptor(match, '__proto__')?.value).toBe('1');
});

it('fills each parameter with the value given for its name, as given', () => {
  expect(fillPathTemplate('/orgs/{org}/jobs/{jobId}', (name) => `<${name}>`)).toBe('/orgs/<org>/jobs/<jobId>');
  expect(fillPathTemplate('/health', () => 'v')).toBe('/health');
});
