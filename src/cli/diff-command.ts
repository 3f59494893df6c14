/**
 * @module cli/diff-command
 * `evidence-harness diff OLD NEW`: every change between two versions of an OpenAPI 3.1
 * document, each classified by whom it breaks (clients written against OLD, servers
 * implementing OLD), optionally weighed against a consumer's coverage, as text, JSON, Markdown
 * or JUnit. The comparison is src/evolution; this module reads, validates and writes.
 */
import { statSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { documentLimits } from '../contract/document-budget.js';
import { DocumentFileError, isHttpUrl, readDocumentFileSync } from '../documents/index.js';
import { specFileProblem } from '../documents/spec-file.js';
import {
  type CoverageInput,
  CoverageInputError,
  coverageInputLimits,
  type DiffFormat,
  DiffLimitError,
  type DiffReport,
  diffDocuments,
  diffFormats,
  type FailOn,
  failsOn,
  parseCoverageInput,
  renderReport,
  withImpact,
} from '../evolution/index.js';
import { defaultDiffLimits, valueCount } from '../evolution/limits.js';
import { headline } from '../evolution/render/groups.js';
import { OutputFileError, writeOutputFile } from '../files/output-file.js';
import { type BundledDocument, loadBundledDocument } from '../openapi/bundled-document.js';
import { InvalidSpecError } from '../openapi/document.js';
import { type Command, diagnostic, exitCodes, formatSize, UsageError } from './command.js';
import { checkOutputAtStart, tlsOptions } from './file-options.js';
import { type OptionTable, optionsHelp, parseOptions } from './options.js';
import { addressPolicyFrom, addressPolicyOptions, allowRemoteRefsOption } from './spec-file.js';

const failOnValues = ['clients', 'servers', 'any'] as const;

/** The command's options, written once: the parser, --help and docs/cli.md come from here. */
export const diffOptions = {
  format: { kind: 'string', value: 'FORMAT', help: 'text (default), json, markdown (a pull-request comment) or junit' },
  output: { kind: 'string', value: 'FILE', help: 'write the report to FILE (stdout prints one line saying so)' },
  'fail-on': { kind: 'string', value: 'WHOM', help: 'exit 1 when a change breaks clients, servers or any (default: exit 0)' },
  coverage: {
    kind: 'string',
    value: 'FILE',
    help: 'a consumer coverage document (mock --coverage-report json=FILE, or control.coverage() written as JSON): each change that breaks clients is marked exercised or unexercised by those tests, exercised listed first',
  },
  ca: { kind: 'string', value: 'FILE', help: 'trust this CA when OLD or NEW is an https URL' },
  insecure: { kind: 'boolean', help: 'trust any certificate for https URLs (tests only)' },
  'allow-remote-refs': allowRemoteRefsOption,
  ...addressPolicyOptions,
} as const satisfies OptionTable;

const help = `Usage: evidence-harness diff OLD NEW [options]

Compares two versions of an OpenAPI 3.1 document (files or http(s) URLs, each validated as
'spec' validates) and lists every change, each with the rule that found it, where it is (a JSON
pointer into NEW, or into OLD for what NEW no longer has) and what to do. Each change is
classified twice:
  breaks clients  a client written against OLD can get an answer it was not written for, or a
                  request it makes is refused (an operation removed, a response enum value or
                  status added, a request limit tightened, a new required field, ...)
  breaks servers  a server implementing OLD fails 'conformance --spec NEW' (an operation added,
                  a request limit loosened, or tightened where the runner sends a value past
                  it, a response field made required, ...)
Wording (descriptions, summaries, examples) is listed as compatible. $refs are compared by what
they resolve to. The rules: docs/evolution.md.

Options:
${optionsHelp(diffOptions)}

Exit codes: 0 done (no change --fail-on names), 1 a change --fail-on names, 2 usage error or
an invalid, unreadable or too large document or coverage file.

Examples:
  evidence-harness diff spec/openapi.yaml next/openapi.yaml
  evidence-harness diff old.yaml new.yaml --fail-on clients --format markdown --output diff.md
  evidence-harness diff https://example.test/openapi.yaml new.yaml --format json
  evidence-harness diff old.yaml new.yaml --coverage coverage.json --fail-on clients
`;

function oneOf<T extends string>(value: string | undefined, allowed: readonly T[], name: string): T | undefined {
  if (value === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(value))
    throw new UsageError(`--${name} must be one of ${allowed.join(', ')}, got '${value.slice(0, 80)}'.`);
  return value as T;
}

/** A local file's problem as a usage error: missing, not a regular file, or over `maxBytes`. */
function checkLocalFile(options: { source: string; label: string; maxBytes: number }): void {
  const problem = specFileProblem(options.source);
  if (problem) throw new UsageError(`${options.label}: ${problem}.`);
  const size = statSync(resolve(options.source)).size;
  if (size > options.maxBytes)
    throw new UsageError(
      `${options.label}: ${options.source} is ${formatSize(size)}, more than the ${formatSize(options.maxBytes)} diff reads.`,
    );
}

/** The consumer's coverage document, read through src/documents (a regular file within the coverage bound). */
function readCoverage(file: string): CoverageInput {
  checkLocalFile({ source: file, label: '--coverage', maxBytes: coverageInputLimits.maxChars });
  let text: string;
  try {
    text = readDocumentFileSync({ path: file, maxBytes: coverageInputLimits.maxChars }).text;
  } catch (error) {
    if (error instanceof DocumentFileError) throw new UsageError(`--coverage ${file}: ${error.message}.`);
    throw error;
  }
  try {
    return parseCoverageInput(text);
  } catch (error) {
    if (error instanceof CoverageInputError) throw new UsageError(`--coverage ${file}: ${error.message}.`);
    throw error;
  }
}

function shownSource(source: string): string {
  return isHttpUrl(source) ? source : relative(process.cwd(), resolve(source)) || source;
}

/** The comparison, with a hostile document's bounds said as a usage error rather than a stack trace. */
function compare(before: BundledDocument, after: BundledDocument): DiffReport {
  try {
    return diffDocuments({
      old: { document: before.document, source: shownSource(before.source) },
      new: { document: after.document, source: shownSource(after.source) },
    });
  } catch (error) {
    if (error instanceof DiffLimitError) throw new UsageError(`the documents cannot be compared: ${error.message}.`);
    if (error instanceof RangeError) throw new UsageError('the documents cannot be compared: they nest too deeply.');
    throw error;
  }
}

/** An OutputFileError (a refused target, a failed write) as the usage error it is. */
async function asUsageError<T>(action: () => T | Promise<T>): Promise<T> {
  try {
    return await action();
  } catch (error) {
    if (error instanceof OutputFileError) throw new UsageError(`${error.message}.`);
    throw error;
  }
}

export const diffCommand: Command = {
  name: 'diff',
  summary: 'list the changes between two OpenAPI documents and whom each breaks',
  help,
  optionTables: { diff: diffOptions },
  async run(argv, io) {
    const { values, positionals } = parseOptions(diffOptions, argv, { allowPositionals: true });
    if (positionals.length !== 2)
      throw new UsageError(`diff takes two documents, OLD and NEW (got ${positionals.length}): evidence-harness diff old.yaml new.yaml.`);
    const [oldSource, newSource] = positionals as [string, string];
    const format: DiffFormat = oneOf(values.format, diffFormats, 'format') ?? 'text';
    const failOn: FailOn | undefined = oneOf(values['fail-on'], failOnValues, 'fail-on');
    const tls = tlsOptions({ ca: values.ca, insecure: values.insecure });
    const output = values.output;
    if (output !== undefined) await checkOutputAtStart({ path: output, label: '--output' });
    for (const [label, source] of [
      ['OLD', oldSource],
      ['NEW', newSource],
    ] as const)
      if (!isHttpUrl(source)) checkLocalFile({ source, label, maxBytes: documentLimits.maxBytes });
    const coverage = values.coverage === undefined ? undefined : readCoverage(values.coverage);
    const documents: BundledDocument[] = [];
    // The step budget is charged as each document is parsed: NEW may hold only what OLD left.
    let valuesLeft = defaultDiffLimits.maxSteps;
    for (const [label, source] of [
      ['OLD', oldSource],
      ['NEW', newSource],
    ] as const) {
      try {
        // The one loader: every file either document draws in is held to the same bounds and
        // $ref policy; a URL is resolved against itself, never a temporary file.
        const document = await loadBundledDocument({
          source,
          tls,
          allowRemoteRefs: values['allow-remote-refs'] === true,
          addressPolicy: addressPolicyFrom(values),
          maxValues: valuesLeft,
        });
        documents.push(document);
        valuesLeft -= valueCount(document.document, valuesLeft + 1);
      } catch (error) {
        if (!(error instanceof InvalidSpecError)) throw error;
        // The budget OLD left, passed by NEW itself (an alias bomb is said as what it is).
        const overLeft = error.message.includes(`more than ${valuesLeft} values`) && !/alias/i.test(error.message);
        if (error.problem === 'budget' && overLeft && valuesLeft < defaultDiffLimits.maxSteps) {
          io.stderr(
            diagnostic(
              `diff: the documents cannot be compared: OLD and NEW together hold more than the ${defaultDiffLimits.maxSteps} values and steps the diff compares (reached reading ${label}); compare smaller documents, or the parts that changed.`,
            ),
          );
          return exitCodes.usage;
        }
        io.stderr(
          diagnostic(
            `diff: ${label} is not a valid OpenAPI 3.1 document: ${error.message}. Fix it (the message says where) and run the command again.`,
          ),
        );
        return exitCodes.usage;
      }
    }
    let report = compare(documents[0]!, documents[1]!);
    if (coverage) report = withImpact({ report, coverage, source: shownSource(values.coverage!) });
    const text = renderReport(report, { format, ...(failOn ? { failOn } : {}) });
    if (output === undefined) io.stdout(text);
    else
      io.stdout(
        `wrote ${await asUsageError(() => writeOutputFile({ path: output, data: text, label: '--output' }))}: ${headline(report)}\n`,
      );
    return failOn && report.changes.some((change) => failsOn(change, failOn)) ? exitCodes.failed : exitCodes.ok;
  },
};
