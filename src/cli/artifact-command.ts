/**
 * @module cli/artifact-command
 * `evidence-harness artifact`: mints signed test artifacts (profile eh-jws-ed25519/0.1,
 * docs/artifact-profile.md) for every answer verifyReport can give, so a client developer can
 * paste one into a request and see VALID, INVALID or UNRESOLVED come back.
 */
import { testKeySet } from '../engine/index.js';
import { mintOutcomeArtifacts, type OutcomeCaseName, outcomeExamples, profileId } from '../engine/verification/artifact-profile.js';
import { type Command, exitCodes, UsageError } from './command.js';
import { type OptionTable, optionsHelp, parseOptions } from './options.js';

/** CLI names are kebab-case: valid-pass for validPass. */
const kebab = (name: string) => name.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);
const outcomeByCliName = new Map(Object.keys(outcomeExamples).map((name) => [kebab(name), name as OutcomeCaseName]));
const issuers = Object.keys(testKeySet.issuers);

const defaultOperationId = 'op-2026-0001';

/** The command's options, written once: the parser, --help and docs/cli.md come from here. */
export const artifactOptions = {
  outcome: { kind: 'string', value: 'NAME', help: 'one outcome (prints only its artifact, for pipes); default: all of them' },
  issuer: { kind: 'string', value: 'URL', help: `the issuer to sign as (default ${issuers[0]}; known: ${issuers.join(', ')})` },
  'operation-id': { kind: 'string', value: 'ID', help: `the operation the artifacts are for (default ${defaultOperationId})` },
  json: { kind: 'boolean', help: 'print {outcome: {artifact, expected, request}} with ready request bodies' },
} as const satisfies OptionTable;

const help = `Usage: evidence-harness artifact [--outcome NAME] [--issuer URL] [--operation-id ID] [--json]

Mints signed test artifacts for POST /v0/verifications (verifyReport) under the mock's test
profile ${profileId} (docs/artifact-profile.md): compact JWS signed with Ed25519 by the shipped
test keys. Each outcome is an artifact that the mock verifies to a known result.

Options:
${optionsHelp(artifactOptions)}

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
  optionTables: { artifact: artifactOptions },
  async run(argv, io) {
    const { values } = parseOptions(artifactOptions, argv);
    const issuer = values.issuer ?? issuers[0]!;
    const operationId = values['operation-id'] ?? defaultOperationId;
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
