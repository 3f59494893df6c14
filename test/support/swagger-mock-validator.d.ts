/**
 * The part of @pactflow/swagger-mock-validator the tests use (the package ships no types): it
 * checks that a pact file's interactions are valid for an OpenAPI document.
 */
declare module '@pactflow/swagger-mock-validator' {
  interface ValidationResult {
    readonly code: string;
    readonly message: string;
  }
  interface ValidationOutcome {
    readonly success: boolean;
    readonly errors: readonly ValidationResult[];
    readonly warnings: readonly ValidationResult[];
  }
  export const SwaggerMockValidatorFactory: {
    create(): { validate(options: { mockPathOrUrl: string; specPathOrUrl: string }): Promise<ValidationOutcome> };
  };
}
