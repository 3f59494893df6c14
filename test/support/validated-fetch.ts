/**
 * Wraps a target's fetch so every response the suite receives, errors included, is checked
 * against spec/openapi.yaml before the test sees it. A response outside the contract fails
 * the test that received it, naming the operation and the problem.
 */
import type { ResponseValidator } from '../../src/openapi/response-validator.js';
import { createSchemaValidator } from '../../src/openapi/schema-validator.js';

const ajv = createSchemaValidator();

function operationFor(validator: ResponseValidator, method: string, path: string): string | undefined {
  const upper = method.toUpperCase() === 'HEAD' ? 'get' : method.toLowerCase();
  for (const operation of validator.contract.operations) {
    if (operation.method !== upper) continue;
    const pattern = new RegExp(`^${operation.path.replace(/\{[^}]+\}/g, '[^/]+')}$`);
    if (pattern.test(path)) return operation.operationId;
  }
  return undefined;
}

export function validatedFetch(options: {
  validator: ResponseValidator;
  fetch: (path: string, init?: RequestInit) => Promise<Response>;
}): (path: string, init?: RequestInit) => Promise<Response> {
  const { validator } = options;
  const errorSchema = validator.contract.schemas.Error!;
  return async (path, init) => {
    const response = await options.fetch(path, init);
    const method = init?.method ?? 'GET';
    if (method.toUpperCase() === 'HEAD') return response;
    const bodyText = await response.clone().text();
    const pathname = new URL(path, 'http://target.invalid').pathname;
    const operationId = operationFor(validator, method, pathname);
    const problems = operationId
      ? validator
          .validate(operationId, { status: response.status, contentType: response.headers.get('content-type'), bodyText })
          .map((problem) => problem.message)
      : // Outside the contract's operations (404/405): still an Error body.
        ajv.validate(errorSchema, JSON.parse(bodyText || 'null'))
        ? []
        : [`${method} ${pathname} ${response.status}: not an Error body: ${bodyText.slice(0, 200)}`];
    if (problems.length > 0)
      throw new Error(`response outside the contract: ${method} ${pathname} → ${response.status}: ${problems.join('; ')}`);
    return response;
  };
}
