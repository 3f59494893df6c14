/**
 * @module evidence-harness
 * The package's main entry point: the contract as code and the OpenAPI document loader.
 * The mock, MSW handlers and conformance runner have their own entry points.
 */
export * from './contract/index.js';
export { type ContractDocument, InvalidSpecError, loadContract, type OperationDescription } from './openapi/document.js';
export { bundledSpecPath } from './openapi/package-root.js';
export { type ObservedResponse, type ResponseProblem, ResponseValidator } from './openapi/response-validator.js';
