/**
 * @module engine/pact/pact-v4
 * The shape of a Pact Specification V4 file, as far as the mock writes one: HTTP interactions
 * only (`Synchronous/HTTP`), with V4 matching rules and provider-state generators
 * (https://github.com/pact-foundation/pact-specification/tree/version-4). It is plain JSON: no
 * Pact library is needed to write it, and none is loaded in the engine (which runs in browsers).
 */

export interface PactMatcher {
  readonly match: 'type' | 'regex' | 'integer' | 'number' | 'decimal' | 'boolean' | 'equality';
  readonly regex?: string;
  readonly min?: number;
  readonly max?: number;
}

/** V4 writes every rule as a list joined by a logical operator. */
export interface PactMatcherList {
  readonly combine: 'AND';
  readonly matchers: readonly PactMatcher[];
}

export interface PactMatchingRules {
  /** By JSON path (`$.jobId`, `$.evidence[*].kind`). */
  readonly body?: Readonly<Record<string, PactMatcherList>>;
  /** By header name. */
  readonly header?: Readonly<Record<string, PactMatcherList>>;
  /** The request path: one rule list, not keyed. */
  readonly path?: PactMatcherList;
}

/** A value filled in at verification time from what the provider state's setup answered. */
export interface PactProviderStateGenerator {
  readonly type: 'ProviderState';
  /** `${name}` refers to a value of the setup's answer: `/v0/jobs/${jobId}`. */
  readonly expression: string;
  readonly dataType: 'STRING';
}

export interface PactGenerators {
  /** The request path: one generator, not keyed. */
  readonly path?: PactProviderStateGenerator;
  readonly header?: Readonly<Record<string, PactProviderStateGenerator>>;
  readonly body?: Readonly<Record<string, PactProviderStateGenerator>>;
}

export interface PactBody {
  readonly content: unknown;
  readonly contentType: string;
  /** false: `content` is the body (JSON as a value); 'base64': `content` is the body's bytes in base64. */
  readonly encoded: false | 'base64';
}

export interface PactProviderState {
  readonly name: string;
  readonly params?: Readonly<Record<string, unknown>>;
}

export interface PactRequest {
  readonly method: string;
  readonly path: string;
  /** V4 keeps every header as a list of values. */
  readonly headers?: Readonly<Record<string, readonly string[]>>;
  readonly body?: PactBody;
  readonly matchingRules?: PactMatchingRules;
  readonly generators?: PactGenerators;
}

export interface PactResponse {
  readonly status: number;
  readonly headers?: Readonly<Record<string, readonly string[]>>;
  readonly body?: PactBody;
  readonly matchingRules?: PactMatchingRules;
}

export interface PactSynchronousHttp {
  readonly type: 'Synchronous/HTTP';
  /** Stable for one behaviour, so a pact written twice from the same traffic is the same file. */
  readonly key: string;
  readonly description: string;
  readonly pending: false;
  readonly providerStates?: readonly PactProviderState[];
  /** V4's free comments: the pact of all sessions names the sessions that showed the behaviour (A-60). */
  readonly comments?: { readonly text?: readonly string[]; readonly testname?: string };
  readonly request: PactRequest;
  readonly response: PactResponse;
}

export interface PactV4 {
  readonly consumer: { readonly name: string };
  readonly provider: { readonly name: string };
  readonly interactions: readonly PactSynchronousHttp[];
  readonly metadata: {
    readonly pactSpecification: { readonly version: '4.0' };
    readonly 'evidence-harness': {
      readonly contractVersion: string;
      /** Behaviours seen but not written (over the cap, or a body the mock did not keep): docs/pact.md. */
      readonly leftOut: number;
      /** In the pact of all sessions: the sessions it covers, and how many of them ended before it was written. */
      readonly sessions?: { readonly count: number; readonly ended: number };
    };
  };
}

/** Names the pact's two sides (the Pact Broker keys pacts by them). */
export interface PactParties {
  readonly consumer: string;
  readonly provider: string;
}

export const defaultPactParties: PactParties = {
  consumer: 'evidence-harness-consumer',
  provider: 'evidence-evaluation-and-verification-service',
};

/** The parties given, checked: a name the broker can take, at most 200 characters. */
export function pactParties(given: Partial<PactParties> = {}): PactParties {
  const check = (role: keyof PactParties): string => {
    const name = given[role] ?? defaultPactParties[role];
    if (typeof name !== 'string' || !/^[^\s/\\][^/\\]{0,199}$/u.test(name) || name.trim() !== name) {
      throw new TypeError(
        `pact ${role} must be a name of 1 to 200 characters, without slashes or surrounding spaces, got '${String(name).slice(0, 80)}'`,
      );
    }
    return name;
  };
  return { consumer: check('consumer'), provider: check('provider') };
}
