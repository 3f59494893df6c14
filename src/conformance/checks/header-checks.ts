/**
 * @module conformance/checks/header-checks
 * The headers a response documents: a required one is sent, and every documented one that is
 * sent holds to its schema (Schemathesis' response_headers_conformance). A document's response
 * headers are part of what a server promises, so a change to them is what `diff` calls
 * breaking servers: this check is what makes a run tell (docs/evolution.md).
 */
import { headerValueForSchema } from '../../openapi/header-value.js';
import { matchResponse } from '../../openapi/response-validator.js';
import { fail, pass, skip } from '../failures.js';
import { type Check, onlyForOperation, received, withResponse } from './check.js';

export const responseHeadersConformance: Check = {
  name: 'response_headers_conformance',
  description: 'every header a response documents as required is sent, and each documented header sent is valid against its schema',
  severity: 'required',
  probes: ['positive'],
  judge: withResponse(
    onlyForOperation((exchange, { operation, validator }) => {
      const response = exchange.response!;
      const documented = matchResponse(operation, response.status);
      // An undocumented status is status_code_documented's to report.
      if (!documented) return skip;
      // A response that documents no header promises none, and keeps that promise.
      if (!documented.headers || documented.headers.length === 0) return pass;
      for (const header of documented.headers) {
        const value = response.headers[header.name];
        if (value === undefined) {
          if (!header.required) continue;
          return fail({
            title: `${response.status} without its required ${header.name} header`,
            expected: `a ${header.name} header (required for ${documented.status} of ${operation.operationId})`,
            received: received(exchange),
          });
        }
        if (!header.schema) continue;
        const problems = validator.validateSchema(header.schema, headerValueForSchema(value, header.schema));
        if (problems.length === 0) continue;
        return fail({
          title: `${response.status} ${header.name} header breaks its schema: ${problems[0]!.keyword}`,
          expected: `a ${header.name} valid against the schema documented for ${documented.status} of ${operation.operationId}`,
          received: `${header.name}: ${value.slice(0, 120)} (${problems.map((problem) => problem.message).join('; ')})`,
        });
      }
      return pass;
    }),
  ),
};
