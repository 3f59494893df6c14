/**
 * A scenario file with several mistakes is refused with all of them at once, each with the line
 * and column where it is written, in YAML and in JSON alike (issue 28).
 */
import { expect, it } from 'vitest';
import { ScenarioError } from '../../src/engine/index.js';
import { scenarioFromText } from '../../src/server/scenario-file.js';

async function problemsOf(options: { text: string; path: string }): Promise<string> {
  const error = await scenarioFromText(options).catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(ScenarioError);
  return (error as ScenarioError).message;
}

it('names every problem of a YAML scenario with its line and column', async () => {
  const text = [
    'name: three-mistakes',
    'colour: blue',
    'job:',
    '  timeline:',
    '    - status: COMPLETE',
    '      at: { reads: 1 }',
    'faults:',
    '  - operation: getJob',
    '    status: 418',
    '',
  ].join('\n');
  const message = await problemsOf({ text, path: 'three.yaml' });
  expect(message).toMatch(/^three\.yaml: invalid scenario:\n/);
  expect(message).toMatch(/ {2}\(root\) \(line 2, column 1\): Unrecognized key: "colour"/);
  expect(message).toMatch(/ {2}job\.timeline\.0\.evaluation \(line 5, column 7\): a COMPLETE step needs an evaluation/);
  expect(message).toMatch(/ {2}faults\.0\.status \(line 9, column 13\): /);
});

it('names every problem of a JSON scenario with its line and column', async () => {
  const text = JSON.stringify({ name: 'Bad Name', latencyMs: -1 }, null, 2);
  const message = await problemsOf({ text, path: 'bad.json' });
  expect(message).toMatch(/ {2}name \(line 2, column 11\): must be lowercase letters, digits and dashes/);
  expect(message).toMatch(/ {2}latencyMs \(line 3, column 16\): /);
});
