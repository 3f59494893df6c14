/**
 * @module conformance/runner/reproductions
 * How a run's failures are reproduced: the curl command of an exchange (a body too long to
 * inline is written beside the reports, --body-directory, and the command reads it from there)
 * and the request `conformance replay` sends again, which reads the same body file.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { OutputFileError, writeOutputFileSync } from '../../files/output-file.js';
import type { Exchange } from '../exchange.js';
import type { ReplayableRequest } from '../failures.js';
import { inlineBodyLimit, toCurl } from '../http/curl.js';
import { replayableRequest } from '../replay.js';

/**
 * What one run writes into its body folder at most: the largest valid bodies are 12.6 MB, and a
 * run that fails them all against a broken server must not fill the disk.
 */
export const maxBodyFolderBytes = 256 * 2 ** 20;

export class Reproductions {
  private directoryMade = false;
  private writtenBytes = 0;
  /** Said once: which long bodies the curl lines leave out, and why. */
  private leftOutSaid = false;
  /** Set once a body file could not be written: later long bodies stay out of curl lines too. */
  private filesFailed = false;
  /** The body file each exchange's curl line reads, by exchange id: its replay reads the same. */
  private readonly bodyFiles = new Map<number, string>();

  constructor(
    private readonly options: {
      /** The target's base URL, as the transport has it. */
      readonly baseUrl: string;
      /** Header names whose values are credentials: curl reads them from the environment, replays leave them out. */
      readonly secretHeaders: readonly string[];
      /** Where long bodies are written; none: not written. */
      readonly bodyDirectory?: string | undefined;
      /** Says in the report that long bodies could not be written. */
      readonly note: (message: string) => void;
    },
  ) {}

  /** The curl command that reproduces an exchange (credentials read from the environment). */
  curl(exchange: Pick<Exchange, 'id' | 'caller' | 'request'>): string {
    const bodyFile = this.bodyFileFor(exchange);
    return toCurl(exchange.request, {
      secretHeaders: this.options.secretHeaders,
      caller: exchange.caller,
      ...(bodyFile ? { bodyFile } : {}),
    });
  }

  /** The failing request as `conformance replay` sends it again, when it can go on its own. */
  replayable(exchange: Exchange): ReplayableRequest | undefined {
    return replayableRequest({
      exchange,
      baseUrl: this.options.baseUrl,
      credentialHeaders: this.options.secretHeaders,
      bodyFile: this.bodyFiles.get(exchange.id),
    });
  }

  private bodyFileFor(exchange: Pick<Exchange, 'id' | 'request'>): string | undefined {
    const body = exchange.request.body;
    const directory = this.options.bodyDirectory;
    if (body === undefined || body.length <= inlineBodyLimit || this.filesFailed) return undefined;
    if (!directory)
      return this.leftOut(
        'Request bodies over 16 KiB are left out of the curl lines: the CLI keeps them with --keep-bodies DIR or --report (runConformance: bodyDirectory).',
      );
    if (this.writtenBytes + body.length > maxBodyFolderBytes)
      return this.leftOut(
        `Request bodies past ${maxBodyFolderBytes / 2 ** 20} MiB in all were not written to ${directory}; their curl lines leave the body out.`,
      );
    try {
      if (!this.directoryMade) mkdirSync(directory, { recursive: true });
      this.directoryMade = true;
      const bodyFile = join(directory, `exchange-${exchange.id}.json`);
      writeOutputFileSync({ path: bodyFile, data: body });
      this.writtenBytes += body.length;
      this.bodyFiles.set(exchange.id, bodyFile);
      return bodyFile;
    } catch (error) {
      // A folder we cannot write must not abort the run: the reproduction says where the body is missing.
      this.filesFailed = true;
      this.options.note(
        `Long request bodies could not be written to ${directory} (${error instanceof OutputFileError ? error.message : ((error as NodeJS.ErrnoException).code ?? 'error')}); their curl lines leave the body out.`,
      );
      return undefined;
    }
  }

  private leftOut(message: string): undefined {
    if (!this.leftOutSaid) this.options.note(message);
    this.leftOutSaid = true;
    return undefined;
  }
}
