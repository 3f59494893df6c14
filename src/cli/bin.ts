#!/usr/bin/env node
/**
 * @module cli/bin
 * The process entry point of the `evidence-harness` executable.
 */
import { diagnostic, exitCodes } from './command.js';
import { main } from './main.js';
import { restartWithMallocTuning } from './malloc-tuning.js';

// Before anything is read or served: `mock` and `proxy` may restart once with a malloc setting.
restartWithMallocTuning();

main(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
}).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(diagnostic(`unexpected failure: ${(error as Error).message}`));
    process.exitCode = exitCodes.failed;
  },
);
