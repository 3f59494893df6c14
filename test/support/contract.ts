/**
 * Shared fixtures for tests: the bundled contract, loaded once per test file, and a
 * response validator over it.
 */
import { type ContractDocument, loadContract } from '../../src/openapi/document.js';
import { ResponseValidator } from '../../src/openapi/response-validator.js';

let contract: Promise<ContractDocument> | undefined;

export function bundledContract(): Promise<ContractDocument> {
  contract ??= loadContract();
  return contract;
}

export async function bundledResponseValidator(): Promise<ResponseValidator> {
  return new ResponseValidator(await bundledContract());
}
