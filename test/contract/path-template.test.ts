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

it.each([
  ['/{a}{b}', '/xyz', { a: 'xy', b: 'z' }],
  ['/{a}.{b}', '/x.y.z', { a: 'x.y', b: 'z' }],
  ['/v/{a}-{b}/{c}', '/v/1-2-3/4', { a: '1-2', b: '3', c: '4' }],
  ['/{a}{b}{c}!', '/abcd!', { a: 'ab', b: 'c', c: 'd' }],
] as const)('matches %s against %s as a backtracking RegExp would', (template, path, parameters) => {
  expect(compilePathTemplate(template).match(path)).toEqual(parameters);
});

it('agrees with a backtracking RegExp on every short path (two or more expressions in a segment)', () => {
  // Exhaustive over an alphabet of 3 characters and paths up to 6 long: the RegExp is the old
  // matcher, which was right but exponential.
  const templates = ['/{a}{b}', '/{a}x{b}', '/{a}{b}x', '/x{a}{b}{c}', '/{a}.{b}/{c}', '/{a}{b}/x{c}y{d}'];
  const alphabet = ['x', '.', '/'];
  const paths: string[] = [''];
  for (let length = 1; length <= 6; length += 1)
    for (const prefix of paths.filter((path) => path.length === length - 1)) for (const c of alphabet) paths.push(prefix + c);
  for (const template of templates) {
    const compiled = compilePathTemplate(template);
    const source = template.replace(/[.]/g, '\\.').replace(/\{[^}]+\}/g, '([^/]+)');
    const pattern = new RegExp(`^${source}$`);
    for (const tail of paths) {
      const path = `/${tail}`;
      const expected = pattern.exec(path);
      const got = compiled.match(path);
      expect(got === undefined ? undefined : Object.values(got), `${template} on ${path}`).toEqual(expected?.slice(1));
    }
  }
});

it('answers for a template of twelve expressions in one segment without trying every split (the "/{a}{b}…{l}!" attack)', () => {
  const compiled = compilePathTemplate('/{a}{b}{c}{d}{e}{f}{g}{h}{i}{j}{k}{l}!');
  // A backtracking RegExp tries C(39, 11) splits here before it says no: billions.
  expect(compiled.test(`/${'a'.repeat(4000)}`)).toBe(false);
  expect(compiled.test(`/${'a'.repeat(40)}`)).toBe(false);
  expect(compiled.match(`/${'a'.repeat(12)}!`)).toEqual(Object.fromEntries([...'abcdefghijkl'].map((name) => [name, 'a'])));
});
