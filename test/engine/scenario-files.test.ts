/**
 * The shipped scenario files: each is valid, each is bundled into the engine, and the JSON
 * Schema published for editors is the one the engine validates with. Invalid scenarios are
 * refused with every problem and its path.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import * as z from 'zod';
import { builtinScenarios } from '../../src/engine/builtin-scenarios.js';
import { createMockEngine, parseScenario, ScenarioError, scenarioSchema } from '../../src/engine/index.js';
import { packageRoot } from '../../src/openapi/package-root.js';
import { createSchemaValidator } from '../../src/openapi/schema-validator.js';

const folder = join(packageRoot(), 'scenarios');
const files = readdirSync(folder).filter((file) => file.endsWith('.json') && file !== 'scenario.schema.json');
const schemaPath = join(folder, 'scenario.schema.json');

function publishedSchema() {
  return { ...z.toJSONSchema(scenarioSchema, { target: 'draft-2020-12', io: 'input' }), title: 'evidence-harness scenario' };
}

it('ships at least the scenarios the issue names', () => {
  const names = files.map((file) => file.replace(/\.json$/, ''));
  for (const required of [
    'default',
    'slow-pass',
    'fail',
    'indeterminate',
    'job-failed',
    'flaky-503',
    'rate-limited',
    'error-400',
    'error-404',
    'error-409',
    'error-413',
  ]) {
    expect(names).toContain(required);
  }
});

it.each(files)('scenarios/%s is valid, named after its file, and bundled into the engine', (file) => {
  const value = JSON.parse(readFileSync(join(folder, file), 'utf8'));
  const scenario = parseScenario({ value, source: file });
  expect(scenario.name).toBe(file.replace(/\.json$/, ''));
  expect(scenario.description.length).toBeGreaterThan(20);
  expect(builtinScenarios().get(scenario.name)).toEqual(scenario);
});

it('bundles no scenario that is not a file in scenarios/', () => {
  expect([...builtinScenarios().keys()].sort()).toEqual(files.map((file) => file.replace(/\.json$/, '')).sort());
});

it('publishes scenarios/scenario.schema.json from the engine’s own schema (UPDATE_SCENARIO_SCHEMA=1 rewrites it)', () => {
  if (process.env.UPDATE_SCENARIO_SCHEMA === '1') writeFileSync(schemaPath, `${JSON.stringify(publishedSchema(), null, 2)}\n`);
  // Compared as JSON, not text: the formatter may lay the file out its own way.
  expect(JSON.parse(readFileSync(schemaPath, 'utf8'))).toEqual(publishedSchema());
});

it.each(files)('scenarios/%s is valid against the published JSON Schema too', (file) => {
  const validate = createSchemaValidator().compile(JSON.parse(readFileSync(schemaPath, 'utf8')));
  expect(validate(JSON.parse(readFileSync(join(folder, file), 'utf8'))), JSON.stringify(validate.errors)).toBe(true);
});

it('refuses an invalid scenario with every problem and its path', () => {
  const attempt = () =>
    parseScenario({
      source: 'my-scenario.json',
      value: {
        name: 'Bad Name',
        job: { timeline: [{ status: 'COMPLETE', at: { reads: 1 } }] },
        faults: [{ status: 418 }],
      },
    });
  expect(attempt).toThrow(ScenarioError);
  expect(attempt).toThrow(/^my-scenario\.json: invalid scenario:\n {2}name: must be lowercase letters, digits and dashes\n/);
  try {
    attempt();
  } catch (error) {
    const problems = (error as ScenarioError).problems;
    expect(problems.map((problem) => problem.path)).toEqual(['name', 'job.timeline.0.evaluation', 'job.timeline', 'faults.0.status']);
  }
});

it('refuses a scenario whose steps go backwards in the state machine', () => {
  expect(() =>
    parseScenario({
      source: 'x',
      value: {
        name: 'x',
        job: {
          timeline: [
            { status: 'FAILED', at: { reads: 1 } },
            { status: 'RUNNING', at: { reads: 2 } },
          ],
        },
      },
    }),
  ).toThrow(/'FAILED → RUNNING' is not allowed/);
});

it('runs a scenario given as an object, and registers it by name', async () => {
  const engine = createMockEngine({
    scenario: { name: 'quick-fail', job: { timeline: [{ status: 'FAILED', at: { reads: 1 } }] } },
  });
  expect(engine.control.scenario).toBe('quick-fail');
  expect(engine.control.scenarios().map((scenario) => scenario.name)).toContain('quick-fail');
});
