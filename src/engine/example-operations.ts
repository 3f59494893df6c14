/**
 * @module engine/example-operations
 * Operations a document adds that the engine has no behaviour for (a `cancelJob` in a proposed
 * version): the request is validated as the document says, and the answer is the example the
 * document gives for its first success status, or for the status `Prefer: code=` asks for. No
 * state changes: the mock says so at start ("served from examples: cancelJob").
 */
import type { EngineCall } from './call.js';
import type { ExampleOperation } from './engine-contract.js';
import type { OperationResult } from './operations.js';
import { readJsonObject } from './request-body.js';
import { errorAnswer, jsonAnswer } from './responses.js';
import { isEngineError } from './router.js';
import { type Diagnostic, describeDiagnostics, diagnose } from './validation.js';

/** Bodies of example-served operations: the bundled create's limit, generous for a request with no stated one. */
const maxExampleBodyBytes = 2 * 1024 * 1024;

export async function answerFromExamples(options: {
  operation: ExampleOperation;
  call: EngineCall;
  params: Readonly<Record<string, string>>;
  preferredStatus?: number;
}): Promise<OperationResult> {
  const { operation, call, params } = options;
  const diagnostics: Diagnostic[] = [];
  for (const [name, schema] of Object.entries(operation.headers)) {
    const value = call.header(name);
    if (value === null) diagnostics.push({ path: `${name} header`, message: 'is required', overMaximum: false });
    else diagnostics.push(...diagnose({ schema, value, prefix: `${name} header` }));
  }
  for (const [name, schema] of Object.entries(operation.pathParameters)) {
    let value: string | undefined;
    try {
      value = decodeURIComponent(params[name] ?? '');
    } catch {
      value = undefined;
    }
    // A path that names no valid resource names none at all: 404, as getJob answers.
    if (value === undefined || diagnose({ schema, value }).length > 0) {
      const code = name === 'jobId' ? 'job_not_found' : 'route_not_found';
      const message = `No resource of ${operation.operationId} has this ${name}.`;
      call.discardBody();
      return { answer: errorAnswer({ status: 404, code, message }), code };
    }
  }
  if (operation.body) {
    const method = call.method.toUpperCase();
    const hasBody = call.header('content-length') !== null || call.header('transfer-encoding') !== null;
    if (method !== 'GET' && method !== 'HEAD' && (hasBody || operation.body.required)) {
      const body = await readJsonObject(call, { bytes: maxExampleBodyBytes, status: 413 });
      if (isEngineError(body)) return { answer: errorAnswer(body), code: body.code };
      diagnostics.push(...diagnose({ schema: operation.body.schema, value: body }));
    } else call.discardBody();
  } else call.discardBody();
  if (diagnostics.length > 0) {
    return {
      answer: errorAnswer({ status: 400, code: 'invalid_request', message: describeDiagnostics(diagnostics) }),
      code: 'invalid_request',
    };
  }
  const chosen =
    operation.answers.find((answer) => answer.status === options.preferredStatus) ??
    operation.answers.find((answer) => answer.status < 400) ??
    operation.answers[0];
  if (!chosen) {
    const message = `${operation.operationId} documents no status the mock can answer with.`;
    return { answer: errorAnswer({ status: 500, code: 'internal_error', message }), code: 'internal_error' };
  }
  if (chosen.example === undefined) return { answer: { status: chosen.status, headers: {}, body: null } };
  return { answer: jsonAnswer({ status: chosen.status, body: chosen.example }) };
}
