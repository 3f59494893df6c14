/**
 * What every answer to a fuzz request must satisfy, whatever was sent: no 5xx the request did
 * not ask for, and a response the spec allows — the operation's documented status, media type
 * and schema, or (outside the contract's operations) a 404/405 Error body.
 */
import type { ContractDocument, OperationDescription } from '../../src/openapi/document.js';
import type { ResponseValidator } from '../../src/openapi/response-validator.js';
import type { FuzzRequest } from './fuzz-requests.js';

export interface ObservedAnswer {
  readonly status: number;
  readonly contentType: string | null;
  readonly bodyText: string;
}

/** Methods Node's HTTP parser accepts (a subset of http.METHODS that fuzzing can produce). */
const knownMethods = new Set([
  'GET',
  'POST',
  'PUT',
  'DELETE',
  'PATCH',
  'HEAD',
  'OPTIONS',
  'COPY',
  'LOCK',
  'MOVE',
  'PURGE',
  'QUERY',
  'REPORT',
  'SEARCH',
  'MERGE',
  'NOTIFY',
  'UNLOCK',
  'BIND',
  'LINK',
  'MKCOL',
  'REBIND',
  'UNBIND',
  'UNLINK',
  'ACL',
  'CHECKOUT',
  'MKACTIVITY',
  'MKCALENDAR',
  'PROPFIND',
  'PROPPATCH',
  'SUBSCRIBE',
  'UNSUBSCRIBE',
  'SOURCE',
  'DESCRIBE',
  'ANNOUNCE',
  'SETUP',
  'PLAY',
  'PAUSE',
  'TEARDOWN',
  'GET_PARAMETER',
  'SET_PARAMETER',
  'REDIRECT',
  'RECORD',
  'FLUSH',
  'PRI',
  'M-SEARCH',
]);

function operationOf(contract: ContractDocument, method: string, path: string): OperationDescription | undefined {
  const pathname = path.split('?')[0] ?? path;
  const wanted = method.toUpperCase() === 'HEAD' ? 'get' : method.toLowerCase();
  return contract.operations.find(
    (operation) => operation.method === wanted && new RegExp(`^${operation.path.replace(/\{[^}]+\}/g, '[^/]+')}$`).test(pathname),
  );
}

/** Every way `answer` breaks the rules for `request`; empty when it holds. */
export function judgeAnswer(options: { validator: ResponseValidator; request: FuzzRequest; answer: ObservedAnswer }): string[] {
  const { validator, request, answer } = options;
  const problems: string[] = [];
  if (answer.status >= 500 && !request.asksForServerError)
    problems.push(`an unasked-for ${answer.status}: ${answer.bodyText.slice(0, 300)}`);
  if (request.method.toUpperCase() === 'HEAD') return problems;
  const operation = operationOf(validator.contract, request.method, request.path);
  if (operation) {
    problems.push(...validator.validate(operation.operationId, answer).map((problem) => problem.message));
    return problems;
  }
  // Outside the contract's operations: 404 or 405 with an Error body (docs/assumptions.md A-20).
  // Over HTTP a method no HTTP/1.1 parser knows never reaches the engine: Node refuses the
  // request line as malformed, and the server answers that 400 with an Error body too.
  const allowed = knownMethods.has(request.method.toUpperCase()) ? [404, 405] : [400, 404, 405];
  if (!allowed.includes(answer.status)) problems.push(`status ${answer.status} outside the contract's operations`);
  const errorSchema = validator.contract.schemas.Error;
  let body: unknown;
  try {
    body = JSON.parse(answer.bodyText);
  } catch {
    problems.push(`not JSON: ${answer.bodyText.slice(0, 120)}`);
    return problems;
  }
  if (errorSchema) problems.push(...validator.validateSchema(errorSchema, body).map((problem) => `Error body: ${problem.message}`));
  return problems;
}

/** Renders a request for a failure message, so a failing case can be replayed by hand. */
export function describeRequest(request: FuzzRequest): string {
  const headers = Object.entries(request.headers)
    .map(([name, value]) => `${name}: ${JSON.stringify(value)}`)
    .join(', ');
  const body = request.body === undefined ? '' : ` body ${JSON.stringify(request.body.slice(0, 300))}`;
  return `${request.method} ${request.path} {${headers}}${body}`;
}
