/**
 * @module cli/spec-command
 * `evidence-harness spec`: validates an OpenAPI document and prints a summary of the contract
 * it states — operations, statuses, schemas and limits.
 */
import { relative } from 'node:path';
import { isHttpUrl } from '../documents/index.js';
import { specFileProblem } from '../documents/spec-file.js';
import { type ContractDocument, InvalidSpecError, type JsonSchema, loadContract } from '../openapi/document.js';
import { type Command, diagnostic, exitCodes } from './command.js';
import { type OptionTable, optionsHelp, parseOptions } from './options.js';
import { addressPolicyFrom, addressPolicyOptions, allowRemoteRefsOption, specAdvice } from './spec-file.js';

/** The command's options, written once: the parser, --help and docs/cli.md come from here. */
export const specOptions = {
  spec: {
    kind: 'string',
    value: 'FILE|URL',
    help: 'the document to read, a file or an http(s) URL (default: the bundled spec/openapi.yaml)',
  },
  'allow-remote-refs': allowRemoteRefsOption,
  ...addressPolicyOptions,
  json: { kind: 'boolean', help: 'print the summary as JSON' },
} as const satisfies OptionTable;

const help = `Usage: evidence-harness spec [--spec FILE|URL] [--json]

Validates an OpenAPI 3.1 document with @apidevtools/swagger-parser and prints a summary of
the contract it states: operations, documented statuses, schemas and their constraints.

Options:
${optionsHelp(specOptions)}

Exit codes: 0 valid, 2 invalid document or usage error.

Examples:
  evidence-harness spec
  evidence-harness spec --spec ./openapi.yaml --json
`;

interface OperationSummary {
  operationId: string;
  method: string;
  path: string;
  statuses: string[];
  requiredHeaders: string[];
  requestBody?: string;
}

interface SchemaSummary {
  name: string;
  closed: boolean;
  fields: { name: string; required: boolean; constraints: string }[];
}

function constraintsText(schema: JsonSchema): string {
  const parts: string[] = [];
  if (Array.isArray(schema.enum)) parts.push(`one of ${schema.enum.join(' | ')}`);
  if (schema.type === 'array') {
    const items = schema.items as JsonSchema;
    parts.push(`array of ${items.title ?? (items.type === 'object' ? 'object' : String(items.type))}`);
    if (schema.minItems !== undefined || schema.maxItems !== undefined)
      parts.push(`${schema.minItems ?? 0}–${schema.maxItems ?? '∞'} items`);
    if (items.maxLength !== undefined) parts.push(`each ≤ ${items.maxLength} chars`);
  } else {
    if (schema.minLength !== undefined || schema.maxLength !== undefined)
      parts.push(`${schema.minLength ?? 0}–${schema.maxLength ?? '∞'} chars`);
    if (schema.pattern) parts.push(`pattern ${schema.pattern}`);
    if (schema.format) parts.push(`format ${schema.format}`);
  }
  return parts.join(', ') || String(schema.type ?? 'any');
}

export function summarize(contract: ContractDocument) {
  const schemaName = new Map(Object.entries(contract.schemas).map(([name, schema]) => [schema, name]));
  const operations: OperationSummary[] = contract.operations.map((operation) => {
    const body = operation.requestBody?.content['application/json'];
    return {
      operationId: operation.operationId,
      method: operation.method.toUpperCase(),
      path: operation.path,
      statuses: operation.responses.map((response) => response.status),
      requiredHeaders: operation.parameters
        .filter((parameter) => parameter.in === 'header' && parameter.required)
        .map((parameter) => `${parameter.name} (${constraintsText(parameter.schema)})`),
      ...(body ? { requestBody: schemaName.get(body) ?? 'inline schema' } : {}),
    };
  });
  const schemas: SchemaSummary[] = Object.entries(contract.schemas).map(([name, schema]) => ({
    name,
    closed: schema.additionalProperties === false,
    fields: Object.entries((schema.properties as Record<string, JsonSchema>) ?? {}).map(([field, property]) => ({
      name: field,
      required: ((schema.required as string[]) ?? []).includes(field),
      constraints:
        property.type === 'array' && schemaName.has(property.items as JsonSchema)
          ? constraintsText({
              ...property,
              items: { ...(property.items as JsonSchema), title: schemaName.get(property.items as JsonSchema) },
            })
          : constraintsText(property),
    })),
  }));
  const info = contract.document.info ?? {};
  return {
    title: String(info.title),
    version: String(info.version),
    status: `${info['x-contract-status'] ?? 'unmarked'}${info['x-implemented'] === false ? ', not implemented' : ''}`,
    operations,
    schemas,
  };
}

function render(summary: ReturnType<typeof summarize>, source: string): string {
  const lines = [
    `${summary.title} ${summary.version} (${summary.status})`,
    `read from ${source}: a valid OpenAPI 3.1 document`,
    '',
    `Operations (${summary.operations.length})`,
  ];
  const pathWidth = Math.max(...summary.operations.map((op) => 5 + op.path.length));
  for (const op of summary.operations) {
    lines.push(`  ${`${op.method.padEnd(4)} ${op.path}`.padEnd(pathWidth)}  ${op.operationId.padEnd(16)}  ${op.statuses.join(' ')}`);
    if (op.requestBody) lines.push(`  ${''.padEnd(pathWidth)}  body: ${op.requestBody}`);
    for (const header of op.requiredHeaders) lines.push(`  ${''.padEnd(pathWidth)}  required header: ${header}`);
  }
  lines.push('', `Schemas (${summary.schemas.length})`);
  for (const schema of summary.schemas) {
    lines.push(`  ${schema.name}${schema.closed ? ' (unknown properties rejected)' : ''}`);
    for (const field of schema.fields) {
      lines.push(`    ${field.name.padEnd(20)} ${field.required ? 'required' : 'optional'}  ${field.constraints}`);
    }
  }
  return `${lines.join('\n')}\n`;
}

export const specCommand: Command = {
  name: 'spec',
  summary: 'validate an OpenAPI document and print a summary of the contract',
  help,
  optionTables: { spec: specOptions },
  async run(argv, io) {
    const { values } = parseOptions(specOptions, argv);
    if (values.spec !== undefined) {
      // A missing file is a mistake in the command line, not a broken document: say which.
      const problem = specFileProblem(values.spec);
      if (problem) {
        io.stderr(diagnostic(`spec: --spec: ${problem}; ${specAdvice}`));
        return exitCodes.usage;
      }
    }
    let contract: ContractDocument;
    try {
      contract = await loadContract({
        ...(values.spec !== undefined ? { source: values.spec } : {}),
        ...(values['allow-remote-refs'] ? { allowRemoteRefs: true } : {}),
        addressPolicy: addressPolicyFrom(values),
      });
    } catch (error) {
      if (error instanceof InvalidSpecError) {
        io.stderr(
          diagnostic(
            `spec: invalid OpenAPI document: ${error.message}. Fix the document (the message says where) and run the command again.`,
          ),
        );
        return exitCodes.usage;
      }
      throw error;
    }
    const summary = summarize(contract);
    // A URL is shown as the loader names it (credentials scrubbed); a path relative to here.
    const source = isHttpUrl(contract.source) ? contract.source : relative(process.cwd(), contract.source) || contract.source;
    io.stdout(values.json ? `${JSON.stringify(summary, null, 2)}\n` : render(summary, source));
    return exitCodes.ok;
  },
};
