/**
 * @module conformance/secrets
 * The one secret scrubber lives in src/contract/secrets.ts, where the isomorphic engine can
 * reach it too (a pact the mock writes is scrubbed with it); the Node-side layers import it here.
 */
export * from '../contract/secrets.js';
