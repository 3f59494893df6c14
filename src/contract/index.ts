/**
 * @module contract
 * The contract as code: limits, zod schemas with their inferred types, and the error-code
 * catalogue.
 * Isomorphic: imports nothing from Node, so the engine can use it in a service worker.
 */
export * from './error-codes.js';
export * from './limits.js';
export * from './schemas.js';
export { boundedText, codePointLength } from './text.js';
export { isUri } from './uri.js';
