/**
 * @module cli/artifact-command
 * `evidence-harness artifact`: mints signed test artifacts (profile eh-jws-ed25519/0.1,
 * docs/artifact-profile.md) for every answer verifyReport can give, so a client developer can
 * paste one into a request and see VALID, INVALID or UNRESOLVED come back.
 */
import { parseArgs } from 'node:util';
import { testKeySet } from '../engine/index.js';
import { mintOutcomeArtifacts, type OutcomeCaseName, outcomeExamples, profileId } from '../engine/verification/artifact-profile.js';
import { type Command, exitCodes, parseCommandLine, UsageError } from './command.js';

/** CLI names are kebab-case: valid-pass for validPass. */
const kebab = (name: string) => name.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);
const outcomeByCliName = new Map(Object.keys(outcomeExamples).map((name) => [kebab(name), name as OutcomeCaseName]));
const issuers = Object.keys(testKeySet.issuers);

const help = `Usage: evidence-harness artifact [--outcome NAME] [--issuer URL] [--operation-id ID] [--json]

Mints signed test artifacts for POST /v0/verifications (verifyReport) under the mock's test
profile ${profileId} (docs/artifact-profile.md): compact JWS signed with Ed25519 by the shipped
test keys. Each outcome is an artifact that the mock verifies to a known result.

Options:
  --outcome NAME       one outcome (prints only its artifact, for pipes); default: all of them
  --issuer URL         the issuer to sign as (default ${issuers[0]}; known: ${issuers.join(', ')})
  --operation-id ID    the operation the artifacts are for (default op-2026-0001)
  --json               print {outcome: {artifact, expected, request}} with ready request bodies
  -h, --help           show this help

Outcomes (verified with the same --issuer and --operation-id as expected values):
${[...outcomeByCliName]
  .map(([cli, name]) => {
    const example = outcomeExamples[name];
    return `  ${cli.padEnd(20)} ${example.expected.integrity}/${example.expected.evaluation}: ${example.description}`;
  })
  .join('\n')}

These keys are public test fixtures: never trust an artifact signed with them.

Examples:
  evidence-harness artifact
  evidence-harness artifact --outcome invalid-signature
  curl -s localhost:4010/v0/verifications -H 'content-type: application/json' \\
    -d "{\\"artifact\\":\\"$(evidence-harness artifact --outcome valid-pass)\\",\\"expectedOperationId\\":\\"op-2026-0001\\",\\"expectedIssuer\\":\\"${issuers[0]}\\"}"
`;

export const artifactCommand: Command = {
  name: 'artifact',
  summary: `mint signed test artifacts for verifyReport (profile ${profileId})`,
  help,
  async run(argv, io) {
    const { values } = parseCommandLine(() =>
      parseArgs({
        args: [...argv],
        strict: true,
        options: {
          outcome: { type: 'string' },
          issuer: { type: 'string', default: issuers[0] },
          'operation-id': { type: 'string', default: 'op-2026-0001' },
          json: { type: 'boolean', default: false },
        },
      }),
    );
    const issuer = values.issuer as string;
    const operationId = values['operation-id'] as string;
    if (!issuers.includes(issuer))
      throw new UsageError(`--issuer '${issuer}' is not in the test key set; use one of ${issuers.join(', ')}.`);
    if (operationId.length === 0 || [...operationId].length > 128) throw new UsageError('--operation-id must be 1 to 128 characters.');
    const chosen = values.outcome === undefined ? undefined : outcomeByCliName.get(values.outcome);
    if (values.outcome !== undefined && !chosen) {
      throw new UsageError(`unknown --outcome '${values.outcome}'; use one of ${[...outcomeByCliName.keys()].join(', ')}.`);
    }
    const minted = await mintOutcomeArtifacts({ keys: testKeySet, issuer, operationId });
    const names = chosen ? [chosen] : (Object.keys(minted) as OutcomeCaseName[]);
    if (values.json) {
      const document = Object.fromEntries(
        names.map((name) => [
          kebab(name),
          {
            description: outcomeExamples[name].description,
            artifact: minted[name].artifact,
            expected: minted[name].expected,
            request: { artifact: minted[name].artifact, expectedOperationId: operationId, expectedIssuer: issuer },
          },
        ]),
      );
      io.stdout(`${JSON.stringify(document, null, 2)}\n`);
      return exitCodes.ok;
    }
    if (chosen) {
      io.stdout(`${minted[chosen].artifact}\n`);
      return exitCodes.ok;
    }
    const blocks = names.map((name) => {
      const { expected, artifact } = minted[name];
      return `${kebab(name)} → ${expected.integrity} / ${expected.evaluation}\n  ${outcomeExamples[name].description}\n  ${artifact}`;
    });
    io.stdout(
      `Test artifacts (${profileId}) for expectedIssuer ${issuer}, expectedOperationId ${operationId}:\n\n${blocks.join('\n\n')}\n`,
    );
    return exitCodes.ok;
  },
};
