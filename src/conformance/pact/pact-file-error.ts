/**
 * @module conformance/pact/pact-file-error
 * The one error a pact file that cannot be verified raises: too large, not JSON, not a pact, or
 * asking for something this runner will not do (an unknown matcher, a regex it cannot run in
 * linear time). The CLI turns it into a usage error (exit 2): the file is wrong, not the server.
 */
export class PactFileError extends Error {
  override readonly name = 'PactFileError';
}
