/**
 * @module cli/file-options
 * Options that name files the commands read or write: the TLS trust of --ca / --insecure
 * and the server profile of --profile (conformance and proxy alike), and plain words for file
 * system errors.
 */
import { DocumentFileError, readDocumentFileSync } from '../documents/index.js';
import { OutputFileError, type PrepareOutputOptions, prepareOutputFolder, prepareOutputTarget } from '../files/output-file.js';
import type { OutboundTls } from '../http/outbound-client.js';
import { ProfileFileError, readProfileFile } from '../profile/load.js';
import type { ServerProfile } from '../profile/profile.js';
import { UsageError } from './command.js';

export /** Plain words for the file system errors a report path meets. */
const fileProblems: Record<string, string> = {
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EEXIST: 'a file is in the way of a folder on its path',
  ENOTDIR: 'a file is in the way of a folder on its path',
  EISDIR: 'it is a folder',
  ENOENT: 'a folder on its path cannot be made',
  EROFS: 'the file system is read-only',
};

/**
 * Largest --ca file read: 1 MiB. A whole public CA bundle (Mozilla's, some 150 certificates) is
 * about 220 KB; a larger file is not a CA file.
 */
const maxCaBytes = 1024 * 1024;

export /** --ca and --insecure, checked: the CA file read once (src/documents: a regular file, bounded), its problems said in plain words. */
function tlsOptions(options: { ca: string | undefined; insecure: boolean }): OutboundTls | undefined {
  if (options.ca !== undefined && options.insecure)
    throw new UsageError('--ca trusts a certificate and --insecure trusts any; give only one of them.');
  if (options.insecure) return { insecure: true };
  if (options.ca === undefined) return undefined;
  let text: string;
  try {
    text = readDocumentFileSync({ path: options.ca, maxBytes: maxCaBytes }).text;
  } catch (error) {
    if (error instanceof DocumentFileError) throw new UsageError(`--ca ${options.ca}: ${error.message}`);
    throw error;
  }
  if (!text.includes('-----BEGIN CERTIFICATE-----'))
    throw new UsageError(`--ca ${options.ca}: no PEM certificate in it (-----BEGIN CERTIFICATE-----)`);
  return { ca: text };
}

/**
 * The one start check of an output option (src/files/output-file.ts, A-37), before any work: a
 * file that cannot be written there is a usage error (exit 2), never found out after a whole run.
 */
export async function checkOutputAtStart(options: PrepareOutputOptions & { readonly folder?: boolean }): Promise<void> {
  try {
    await (options.folder ? prepareOutputFolder(options) : prepareOutputTarget(options));
  } catch (error) {
    if (error instanceof OutputFileError) throw new UsageError(`${error.message}.`);
    throw error;
  }
}

/** `--profile FILE`, read through the one profile reader: a file it refuses is a usage error naming each problem. */
export async function readProfileOption(path: string | undefined): Promise<ServerProfile | undefined> {
  if (path === undefined) return undefined;
  try {
    return await readProfileFile(path);
  } catch (error) {
    if (error instanceof ProfileFileError) throw new UsageError(`--profile: ${error.message}`);
    throw error;
  }
}
