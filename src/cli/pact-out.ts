/**
 * @module cli/pact-out
 * `mock --pact-out FILE`: the pact of the client's traffic in every session
 * (control.pactOfAllSessions(), docs/pact.md, A-60), written when the mock stops, beside
 * --coverage-report's files.
 */
import { resolve } from 'node:path';
import type { Scrubber } from '../contract/secrets.js';
import { type MockControl, type PactParties, pactParties } from '../engine/index.js';
import { writeOutputFile } from '../files/output-file.js';
import { UsageError } from './command.js';
import { checkOutputAtStart } from './file-options.js';

export interface PactOutTarget {
  readonly file: string;
  readonly parties: PactParties;
}

/** The target the options ask for, checked at start so a bad name fails before the run, not after it. */
export async function pactOutOption(values: {
  readonly 'pact-out'?: string | undefined;
  readonly 'pact-consumer'?: string | undefined;
  readonly 'pact-provider'?: string | undefined;
}): Promise<PactOutTarget | undefined> {
  const consumer = values['pact-consumer'];
  const provider = values['pact-provider'];
  if (values['pact-out'] === undefined) {
    if (consumer !== undefined || provider !== undefined) {
      throw new UsageError(
        `--${consumer !== undefined ? 'pact-consumer' : 'pact-provider'} names a side of the pact --pact-out writes; give --pact-out FILE as well.`,
      );
    }
    return undefined;
  }
  await checkOutputAtStart({ path: values['pact-out'], label: '--pact-out' });
  try {
    return {
      file: values['pact-out'],
      parties: pactParties({ ...(consumer === undefined ? {} : { consumer }), ...(provider === undefined ? {} : { provider }) }),
    };
  } catch (error) {
    throw new UsageError(`--${(error as Error).message.replace(/^pact (consumer|provider)/, 'pact-$1')}.`);
  }
}

/**
 * Writes the pact of every session's traffic; returns the absolute path written. The pact
 * scrubs the credentials of the calls it keeps; `scrubber` (the engine's) adds those of every
 * other call.
 */
export async function writePactFile(options: {
  control: MockControl;
  target: PactOutTarget;
  cwd: string;
  scrubber?: Scrubber | undefined;
}): Promise<string> {
  const pact = options.control.pactOfAllSessions(options.target.parties);
  const data = `${JSON.stringify(options.scrubber ? options.scrubber.scrubDeep(pact) : pact, null, 2)}\n`;
  return writeOutputFile({ path: resolve(options.cwd, options.target.file), data, label: '--pact-out' });
}
