/**
 * @module cli/workflow-options
 * The options of `conformance` that run Arazzo workflows (--workflows, --input, --workflow),
 * kept apart from the command's other options so the command gains them in two lines.
 */
import { secretInputValues, type WorkflowOptions } from '../conformance/workflows/index.js';
import { UsageError } from './command.js';
import type { OptionTable } from './options.js';

export const workflowOptionTable = {
  workflows: {
    kind: 'string',
    value: 'FILE',
    path: 'file',
    help: "run the Arazzo 1.0 workflows of FILE (YAML or JSON; the shipped ones: spec/workflows.arazzo.yaml) through the run's transport and checks. Without --checks, only the workflows run, every answer judged by the response checks and workflow_success_criteria; with --checks, those checks' probes run too. Redocly: respect FILE",
  },
  input: {
    kind: 'string',
    value: 'NAME=VALUE',
    multiple: true,
    help: "a workflow input over its default, for every workflow declaring NAME; read as the input's schema types it (a number, true/false, JSON for an object); repeatable. Inputs with format: password are scrubbed from reports. Redocly: respect --input",
  },
  workflow: {
    kind: 'string',
    value: 'ID,...',
    multiple: true,
    help: 'run only these workflows of --workflows (their dependsOn too); repeatable. Redocly: respect --workflow',
  },
} as const satisfies OptionTable;

/** The run's `workflows` option from the command line, or nothing without --workflows. */
export function workflowRunOptions(values: {
  workflows: string | undefined;
  input: readonly string[] | undefined;
  workflow: readonly string[] | undefined;
}): { workflows?: WorkflowOptions } {
  const given = values.input ?? [];
  const only = (values.workflow ?? []).flatMap((list) => list.split(',').map((id) => id.trim())).filter(Boolean);
  if (values.workflows === undefined) {
    if (given.length > 0 || only.length > 0) throw new UsageError('--input and --workflow need --workflows FILE.');
    return {};
  }
  const entries: [string, string][] = [];
  for (const line of given) {
    const equals = line.indexOf('=');
    if (equals < 1) throw new UsageError(`--input takes NAME=VALUE, got '${line.slice(0, 40)}'.`);
    entries.push([line.slice(0, equals).trim(), line.slice(equals + 1)]);
  }
  // Own properties, whatever the name: `inputs.__proto__ = …` would set the prototype instead, and
  // `--input __proto__=…` would then pass the check that refuses every undeclared name.
  const inputs: Record<string, string> = Object.fromEntries(entries);
  return { workflows: { file: values.workflows, inputs, ...(only.length > 0 ? { only } : {}) } };
}

/** The --input values the --workflows file marks secret, for the command's own scrubbing (its output, a cassette). */
export async function secretInputsOf(options: { workflows?: WorkflowOptions }): Promise<string[]> {
  const { workflows } = options;
  return workflows && typeof workflows.file === 'string' ? secretInputValues(workflows.file, workflows.inputs ?? {}) : [];
}
