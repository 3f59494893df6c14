/**
 * @module client/schema
 * The contract's types, generated from spec/openapi.yaml by openapi-typescript. Do not edit:
 * run `npm run generate:client` after changing the spec (test/client/schema-fresh.test.ts fails
 * until you do).
 */
export interface paths {
  '/health': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Report operational health
     * @description Reports operational health only. It does not report verification correctness. The body of the health response is not shown by the contract.
     */
    get: operations['health'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v0/evaluations': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Create an evaluation job
     * @description Accepts an evaluation of the given evidence references as an asynchronous job. A 202 means the evaluation is accepted as a job; it is not a successful verdict. Read the job's progress with getJob.
     */
    post: operations['createEvaluation'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v0/verifications': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Verify an encoded artifact
     * @description Verifies an encoded artifact against an expected operation identifier and an expected issuer, and returns an integrity result, an evaluation result and a list of reasons. The verification is synchronous. Acceptance of the result remains a local decision of the caller. No Idempotency-Key header is declared.
     */
    post: operations['verifyReport'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v0/jobs/{jobId}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Read a job's current state
     * @description Returns the current state of an evaluation job. Job progress is read by polling this operation. A job can be unavailable to a caller (404): access to a job is caller-specific.
     */
    get: operations['getJob'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
}
export type webhooks = Record<string, never>;
export interface components {
  schemas: {
    /**
     * @description The body of POST /v0/evaluations.
     * @example {
     *       "profile": "svc.dmt-derivation/0.1-draft",
     *       "operationId": "op-2026-0002",
     *       "instructionDigest": "3a7bd3e2360a3d29eea436fcfb7e44c735d117c42d1c1835420b6b9942dd4f1b",
     *       "policyDigest": "b94d27b9934d3e08a52e52d7da7dabfac484efe37a5380ee9088f7ace2efcde9",
     *       "evidence": [
     *         {
     *           "id": "ev-1",
     *           "kind": "reproduced_calculation"
     *         }
     *       ]
     *     }
     */
    EvaluationRequest: {
      /** @enum {string} */
      profile: 'svc.payment-conformance/0.1-draft' | 'svc.dmt-derivation/0.1-draft';
      operationId: string;
      /** @description 64 lowercase hex characters. What is hashed, and how, is not shown. */
      instructionDigest: string;
      /** @description 64 lowercase hex characters. What is hashed, and how, is not shown. */
      policyDigest: string;
      evidence: components['schemas']['EvidenceReference'][];
    };
    /**
     * @example {
     *       "id": "ev-1",
     *       "kind": "inclusion_proof",
     *       "digest": "2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae",
     *       "uri": "https://evidence.example/proofs/ev-1",
     *       "network": "mainnet"
     *     }
     */
    EvidenceReference: {
      id: string;
      /** @enum {string} */
      kind:
        | 'issuer_assertion'
        | 'signed_observation'
        | 'rpc_observation'
        | 'inclusion_proof'
        | 'validated_state'
        | 'reproduced_calculation';
      digest?: string;
      /**
       * Format: uri
       * @description An untrusted reference. Fetching it requires explicit server policy.
       */
      uri?: string;
      network?: string;
    };
    /**
     * @example {
     *       "jobId": "job-7f3c2a",
     *       "status": "COMPLETE",
     *       "evaluation": "INDETERMINATE",
     *       "limitations": [
     *         "Evidence ev-2 could not be reproduced."
     *       ]
     *     }
     */
    Job: {
      jobId: string;
      /** @enum {string} */
      status: 'QUEUED' | 'RUNNING' | 'COMPLETE' | 'FAILED';
      /** @enum {string} */
      evaluation?: 'PASS' | 'FAIL' | 'INDETERMINATE';
      limitations?: string[];
    };
    /**
     * @description The body of POST /v0/verifications.
     * @example {
     *       "artifact": "eyJhbGciOiJFZERTQSJ9.eyJvcCI6Im9wLTIwMjYtMDAwMSJ9.c2lnbmF0dXJl",
     *       "expectedOperationId": "op-2026-0001",
     *       "expectedIssuer": "https://issuer.example"
     *     }
     */
    VerificationRequest: {
      /** @description The encoded original artifact. Its wire and signing profile is not finalized. */
      artifact: string;
      expectedOperationId: string;
      expectedIssuer: string;
    };
    /**
     * @example {
     *       "integrity": "INVALID",
     *       "evaluation": "FAIL",
     *       "reasons": [
     *         "The signature does not verify with the issuer's key."
     *       ]
     *     }
     */
    VerificationResult: {
      /** @enum {string} */
      integrity: 'VALID' | 'INVALID' | 'UNRESOLVED';
      /** @enum {string} */
      evaluation: 'PASS' | 'FAIL' | 'INDETERMINATE';
      reasons: string[];
    };
    /**
     * @description Every error response body is an Error.
     * @example {
     *       "code": "job_not_found",
     *       "message": "No job with this jobId is available to this caller."
     *     }
     */
    Error: {
      code: string;
      message: string;
    };
  };
  responses: {
    /** @description Invalid request. */
    InvalidRequest: {
      headers: {
        [name: string]: unknown;
      };
      content: {
        'application/json': components['schemas']['Error'];
      };
    };
    /** @description Processing or availability failure. */
    ProcessingFailure: {
      headers: {
        [name: string]: unknown;
      };
      content: {
        'application/json': components['schemas']['Error'];
      };
    };
  };
  parameters: {
    /**
     * @description A key the caller chooses for this request. A repeated key with the same request digest is a replay; a repeated key with a different request digest is a conflict (409).
     * @example 5f2b6c1e-8d4a-4b7e-9c1f-2a3b4c5d6e7f
     */
    IdempotencyKey: string;
  };
  requestBodies: never;
  headers: never;
  pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
  health: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Operational health only; it does not show verification correctness. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': unknown;
        };
      };
    };
  };
  createEvaluation: {
    parameters: {
      query?: never;
      header: {
        /**
         * @description A key the caller chooses for this request. A repeated key with the same request digest is a replay; a repeated key with a different request digest is a conflict (409).
         * @example 5f2b6c1e-8d4a-4b7e-9c1f-2a3b4c5d6e7f
         */
        'Idempotency-Key': components['parameters']['IdempotencyKey'];
      };
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['EvaluationRequest'];
      };
    };
    responses: {
      /** @description The evaluation is accepted as a job. It is not a successful verdict. */
      202: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Job'];
        };
      };
      400: components['responses']['InvalidRequest'];
      /** @description The idempotency key conflicts with the request digest. */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Input exceeds limits. */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      default: components['responses']['ProcessingFailure'];
    };
  };
  verifyReport: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['VerificationRequest'];
      };
    };
    responses: {
      /** @description Verification results; acceptance remains local. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['VerificationResult'];
        };
      };
      400: components['responses']['InvalidRequest'];
      /** @description Unable to process. */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getJob: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /**
         * @description The job's identifier, as returned by createEvaluation.
         * @example job-7f3c2a
         */
        jobId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The current job state. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Job'];
        };
      };
      /** @description The job is unavailable to this caller. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unable to process. */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
}
