/**
 * @module app/demo-artifact
 * Mints the artifacts the demo verifies, signed with the mock's published test keys
 * (docs/artifact-profile.md): only the mock accepts them, which is the point of a demo. Loaded
 * on demand so the signing code is not in the page until someone verifies.
 */

export interface DemoArtifactOptions {
  readonly operationId: string;
  readonly issuer: string;
  /** Mint one whose signature does not verify, to show an INVALID result. */
  readonly tampered: boolean;
}

export async function mintDemoArtifact(options: DemoArtifactOptions): Promise<string> {
  const { mintArtifact, testKeySet } = await import('evidence-harness/engine');
  return mintArtifact({
    issuer: options.issuer,
    operationId: options.operationId,
    evaluation: 'PASS',
    keys: testKeySet,
    tamper: options.tampered ? 'signature' : 'none',
  });
}
