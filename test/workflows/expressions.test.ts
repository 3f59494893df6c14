/**
 * The pieces a workflow's steps are evaluated with: runtime expressions, the simple condition
 * language, the JSONPath subset and the criteria built on them. Each is bounded and evaluates
 * without eval, so hostile conditions are errors or bounded failures, never hangs.
 */
import { describe, expect, it } from 'vitest';
import { parseWorkflowDocument } from '../../src/conformance/workflows/arazzo-document.js';
import { ConditionSyntaxError, evaluateCondition, parseCondition } from '../../src/conformance/workflows/condition.js';
import { PreparedCriteria } from '../../src/conformance/workflows/criteria.js';
import { compileJsonPath, JsonPathError, queryJsonPath } from '../../src/conformance/workflows/json-path.js';
import {
  ExpressionError,
  type ExpressionScope,
  evaluateExpression,
  resolveValue,
} from '../../src/conformance/workflows/runtime-expressions.js';
import { inTime } from '../support/time-limits.js';

const scope: ExpressionScope = {
  inputs: { key: 'k-1', evaluation: { operationId: 'op-1', evidence: [{ id: 'ev-1' }] }, count: 3 },
  steps: { create: { outputs: { jobId: 'job-7', job: { status: 'QUEUED' } } } },
  workflows: { other: { inputs: { a: 1 }, outputs: { done: true } } },
  outputs: {},
  sourceDescriptions: { evidence: { url: './openapi.yaml' } },
  components: { parameters: { key: { name: 'Idempotency-Key', in: 'header', value: 'x' } } },
  exchange: {
    url: 'http://127.0.0.1/v0/jobs/job-7',
    method: 'GET',
    statusCode: 200,
    request: { headers: { Authorization: 'Bearer a' }, query: { q: '1' }, path: { jobId: 'job-7' }, body: undefined },
    response: {
      headers: { 'retry-after': '2', 'content-type': 'application/json' },
      body: { jobId: 'job-7', status: 'RUNNING', 'a/b': { '~c': 1 } },
    },
  },
};

const value = (text: string) => {
  const result = evaluateExpression(text, scope);
  return result.found ? result.value : `(missing: ${result.reason})`;
};

describe('runtime expressions', () => {
  it('reads every source of Arazzo 1.0', () => {
    expect(value('$statusCode')).toBe(200);
    expect(value('$url')).toBe('http://127.0.0.1/v0/jobs/job-7');
    expect(value('$method')).toBe('GET');
    expect(value('$response.body#/status')).toBe('RUNNING');
    expect(value('$response.body#/a~1b/~0c')).toBe(1);
    expect(value('$response.header.Retry-After')).toBe('2');
    expect(value('$request.header.authorization')).toBe('Bearer a');
    expect(value('$request.path.jobId')).toBe('job-7');
    expect(value('$request.query.q')).toBe('1');
    expect(value('$inputs.key')).toBe('k-1');
    expect(value('$inputs.evaluation.operationId')).toBe('op-1');
    expect(value('$inputs.evaluation#/evidence/0/id')).toBe('ev-1');
    expect(value('$steps.create.outputs.jobId')).toBe('job-7');
    expect(value('$steps.create.outputs.job#/status')).toBe('QUEUED');
    expect(value('$workflows.other.outputs.done')).toBe(true);
    expect(value('$workflows.other.inputs.a')).toBe(1);
    expect(value('$sourceDescriptions.evidence.url')).toBe('./openapi.yaml');
    expect(value('$components.parameters.key.name')).toBe('Idempotency-Key');
  });

  it('says what is missing rather than throwing', () => {
    expect(value('$response.body#/nope')).toBe('(missing: nothing at /nope)');
    expect(value('$steps.later.outputs.x')).toBe("(missing: step 'later' has not run)");
    expect(value('$inputs.absent')).toBe("(missing: input 'absent' is not set)");
    expect(value('$response.header.X-None')).toBe('(missing: no X-None header)');
  });

  it('refuses what is not an expression', () => {
    expect(() => evaluateExpression('$nothing.here', scope)).toThrow(ExpressionError);
    expect(() => evaluateExpression('$response.cookie.a', scope)).toThrow(ExpressionError);
    expect(() => evaluateExpression('$steps.create.jobId', scope)).toThrow(/outputs/);
  });

  it('resolves payloads: whole expressions, embedded ones, literals', () => {
    const resolved = resolveValue(
      { a: '$inputs.key', b: 'Bearer {$steps.create.outputs.jobId}', c: [1, '$inputs.count'], d: 'plain $ text' },
      scope,
    );
    expect(resolved).toEqual({ found: true, value: { a: 'k-1', b: 'Bearer job-7', c: [1, 3], d: 'plain $ text' } });
    expect(resolveValue('{$inputs.nope}', scope)).toMatchObject({ found: false });
  });
});

describe('simple conditions', () => {
  const check = (text: string) =>
    evaluateCondition(
      parseCondition(text),
      (operand) => {
        const result = evaluateExpression(operand, scope);
        return result.found ? result.value : undefined;
      },
      'loose',
    );

  it('compares as Arazzo says: strings case-insensitively, numeric strings as numbers', () => {
    expect(check('$statusCode == 200')).toBe(true);
    expect(check("$statusCode == '200'")).toBe(true);
    expect(check("$response.body#/status == 'running'")).toBe(true);
    expect(check('$response.body#/jobId == $steps.create.outputs.jobId')).toBe(true);
    expect(check('$statusCode != 200')).toBe(false);
    expect(check('$statusCode < 300 && $statusCode >= 200')).toBe(true);
    expect(check("!($response.body#/status == 'COMPLETE') || $statusCode == 500")).toBe(true);
    expect(check('$response.body#/nope == null')).toBe(true);
    expect(check("$response.body#/nope == 'x'")).toBe(false);
    expect(check("'it''s' == 'IT''S'")).toBe(true);
  });

  it('refuses what it cannot read, with where', () => {
    expect(() => parseCondition('$statusCode == COMPLETE')).toThrow(/quoted/);
    expect(() => parseCondition('($statusCode == 200')).toThrow(/expected '\)'/);
    expect(() => parseCondition("$a == 'open")).toThrow(/not closed/);
    expect(() => parseCondition('$statusCode ==')).toThrow(ConditionSyntaxError);
  });

  it('is bounded: deep nesting, long conditions and many tokens are errors', () => {
    expect(() => parseCondition(`${'('.repeat(500)}1${')'.repeat(500)}`)).toThrow(/longer than|nested|tokens/);
    expect(() => parseCondition(`${'('.repeat(100)}1${')'.repeat(100)}`)).toThrow(/nested more than 32/);
    expect(() => parseCondition(Array.from({ length: 200 }, () => '1').join(' && '))).toThrow(/tokens/);
  });
});

describe('the JSONPath subset', () => {
  const body = {
    jobs: [
      { id: 'a', status: 'COMPLETE', n: 2 },
      { id: 'b', status: 'QUEUED', n: 5 },
    ],
    meta: { count: 2 },
  };
  const query = (path: string) => queryJsonPath(compileJsonPath(path), body);

  it('selects names, indexes, wildcards, descendants and filters', () => {
    expect(query('$.meta.count')).toEqual([2]);
    expect(query("$['meta']['count']")).toEqual([2]);
    expect(query('$.jobs[-1].id')).toEqual(['b']);
    expect(query('$.jobs[*].id')).toEqual(['a', 'b']);
    expect(query('$..id')).toEqual(['a', 'b']);
    expect(query("$.jobs[?@.status == 'QUEUED'].id")).toEqual(['b']);
    expect(query("$.jobs[?(@.n > 1 && @.status != 'QUEUED')].id")).toEqual(['a']);
    expect(query("$.jobs[?@.status == 'queued']")).toEqual([]); // RFC 9535 compares exactly
    expect(query('$.nothing')).toEqual([]);
    // A lone query in a filter tests existence: a member that is false or 0 exists.
    expect(queryJsonPath(compileJsonPath('$.items[?@.done].id'), { items: [{ id: 1, done: false }, { id: 2 }] })).toEqual([1]);
  });

  it('refuses functions and other syntax it does not run', () => {
    expect(() => compileJsonPath('$[?length(@.jobs) > 1]')).toThrow(/functions/);
    expect(() => compileJsonPath('$.jobs[0:2]')).toThrow(JsonPathError);
    expect(() => compileJsonPath('jobs')).toThrow(/start with \$/);
  });

  it('visits a bounded number of values on a huge body', () => {
    const huge = { items: Array.from({ length: 300_000 }, (_, index) => ({ index })) };
    expect(() => queryJsonPath(compileJsonPath('$..index'), huge)).toThrow(/visits more than/);
  });
});

function documentWith(steps: string, extra = ''): string {
  return `arazzo: 1.0.1
info: { title: t, version: '1' }
sourceDescriptions: [{ name: evidence, url: ./openapi.yaml, type: openapi }]
workflows:
  - workflowId: w
    steps:
${steps}
${extra}`;
}

describe('criteria', () => {
  it('judges regex criteria in linear time and says what they saw', async () => {
    const document = parseWorkflowDocument(
      documentWith(`      - stepId: s
        operationId: getJob
        successCriteria:
          - context: $response.body#/status
            condition: ^(COMPLETE|FAILED)$
            type: regex
          - context: $response.body
            condition: $.status
            type: { type: jsonpath, version: draft-goessner-dispatch-jsonpath-00 }`),
      'inline',
    );
    const criteria = await PreparedCriteria.of(document.document);
    const [regex, jsonpath] = document.document.workflows[0]!.steps[0]!.successCriteria!;
    expect(criteria.judge(regex!, scope)).toEqual({ passed: false, seen: '$response.body#/status = "RUNNING"' });
    expect(criteria.judge(jsonpath!, scope).passed).toBe(true);
  });

  it('refuses a regex that could backtrack for ever, before anything is sent', async () => {
    const document = parseWorkflowDocument(
      documentWith(`      - stepId: s
        operationId: getJob
        successCriteria:
          - context: $response.body#/status
            condition: ^(a+)+\\1$
            type: regex`),
      'inline',
    );
    await expect(PreparedCriteria.of(document.document)).rejects.toThrow(/step 's' successCriteria \[0\].*backreference/i);
  });

  it('runs a catastrophic-backtracking pattern in linear time', async () => {
    const document = parseWorkflowDocument(
      documentWith(`      - stepId: s
        operationId: getJob
        successCriteria:
          - context: $response.body#/status
            condition: ^(a+)+$
            type: regex`),
      'inline',
    );
    const criteria = await PreparedCriteria.of(document.document);
    const attack: ExpressionScope = {
      ...scope,
      exchange: { ...scope.exchange!, response: { headers: {}, body: { status: `${'a'.repeat(50_000)}!` } } },
    };
    const started = performance.now();
    expect(criteria.judge(document.document.workflows[0]!.steps[0]!.successCriteria![0]!, attack).passed).toBe(false);
    // Ends: the backtracking match it guards against takes 2^50,000 steps (its speed is the bench's).
    expect(performance.now() - started).toBeLessThan(inTime());
    const huge: ExpressionScope = {
      ...scope,
      exchange: { ...scope.exchange!, response: { headers: {}, body: { status: 'a'.repeat(70_000) } } },
    };
    expect(criteria.judge(document.document.workflows[0]!.steps[0]!.successCriteria![0]!, huge)).toEqual({
      passed: false,
      seen: '$response.body#/status is 70000 characters; a regex criterion reads at most 65536',
    });
  });
});
