/** How `conformance`'s workflow options read the command line (src/cli/workflow-options.ts). */
import { expect, it } from 'vitest';
import { UsageError } from '../../src/cli/command.js';
import { workflowRunOptions } from '../../src/cli/workflow-options.js';

it('reads --input NAME=VALUE (the value may hold =) and --workflow lists', () => {
  expect(
    workflowRunOptions({ workflows: 'flows.yaml', input: ['key=a=b', 'count=3'], workflow: ['replay,conflict', 'verifyArtifact'] }),
  ).toEqual({ workflows: { file: 'flows.yaml', inputs: { key: 'a=b', count: '3' }, only: ['replay', 'conflict', 'verifyArtifact'] } });
  expect(workflowRunOptions({ workflows: undefined, input: undefined, workflow: undefined })).toEqual({});
});

it('refuses --input without a name, and --input or --workflow without --workflows', () => {
  expect(() => workflowRunOptions({ workflows: 'f', input: ['=x'], workflow: [] })).toThrow(UsageError);
  expect(() => workflowRunOptions({ workflows: undefined, input: ['a=b'], workflow: [] })).toThrow(/need --workflows/);
  expect(() => workflowRunOptions({ workflows: undefined, input: [], workflow: ['replay'] })).toThrow(/need --workflows/);
});
