/**
 * @module engine/verification/test-keys
 * The test key set the mock ships for the `eh-jws-ed25519/0.1` artifact profile
 * (docs/artifact-profile.md): two issuers, each with a fixed Ed25519 key pair.
 *
 * THESE KEYS ARE PUBLIC TEST FIXTURES. Their private halves are published in this file, so
 * anyone can sign anything with them. Never use them, or trust a signature made with them, for
 * anything real. They are fixed (generated once, pasted here) so that artifacts minted in one
 * run, or by another tool, still verify in the next.
 */
import type { IssuerKeySet } from './artifact-profile.js';

/** The mock's default issuers and their Ed25519 key pairs (public test fixtures, see above). */
export const testKeySet: IssuerKeySet = {
  issuers: {
    'https://issuer.example': {
      publicJwk: { kty: 'OKP', crv: 'Ed25519', x: 'a73Lj2La7TDZ0Ba25Nep38K3sFJ0mFFt6UP02k8Mero' },
      privateJwk: {
        kty: 'OKP',
        crv: 'Ed25519',
        x: 'a73Lj2La7TDZ0Ba25Nep38K3sFJ0mFFt6UP02k8Mero',
        d: 'EJ4ze4XkwVs85T4e_i4g0j-7zUwSAKF0ImR3Vu46kuY',
      },
    },
    'https://second-issuer.example': {
      publicJwk: { kty: 'OKP', crv: 'Ed25519', x: 'kmklYzTOpSf30eAhLiJZbtfZA4KKx9EmDOecWFs6vI8' },
      privateJwk: {
        kty: 'OKP',
        crv: 'Ed25519',
        x: 'kmklYzTOpSf30eAhLiJZbtfZA4KKx9EmDOecWFs6vI8',
        d: '317LxBVHWq2RzT4vw6OS63KYnOulhCJkp8LDmMhXXiA',
      },
    },
  },
};
