/**
 * @module cli/spec-url
 * A document named by an http(s) URL, fetched by the runner's own bounded transport (so --ca
 * and --insecure apply, and a huge or endless answer is cut), then read from a private
 * temporary file by whatever reader the command uses; error messages name the URL, not the
 * file. swagger-parser's own fetching refuses loopback and private addresses. A document whose
 * $refs point at other remote files is not supported: this spec has none.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TlsOptions } from '../conformance/http/bounded-client.js';
import { InvalidSpecError } from '../openapi/document.js';

/** The largest document a URL may answer with. */
export const maxSpecBytes = 16 * 1024 * 1024;

export function isHttpUrl(value: string): boolean {
  return /^https?:\/\//i.test(value);
}

export async function readSpecFromUrl<T>(options: {
  url: string;
  tls: TlsOptions | undefined;
  read: (file: string) => Promise<T>;
}): Promise<T> {
  const { url, tls } = options;
  // Loaded here, so that commands reading local files never load the HTTP client.
  const { Transport } = await import('../conformance/http/transport.js');
  const transport = new Transport({ baseUrl: url, timeoutMs: 30_000, maxResponseBytes: maxSpecBytes, ...(tls ? { tls } : {}) });
  let result: Awaited<ReturnType<InstanceType<typeof Transport>['send']>>;
  try {
    result = await transport.send({ method: 'GET', path: '', headers: { accept: 'application/yaml, application/json;q=0.9, */*;q=0.5' } });
  } finally {
    transport.close();
  }
  const response = result.response;
  if (!response || response.incomplete)
    throw new InvalidSpecError(`${url}: ${response?.incomplete?.message ?? result.transportError ?? 'no answer'}`);
  if (response.status !== 200) throw new InvalidSpecError(`${url}: answered ${response.status}, not the document`);
  const folder = await mkdtemp(join(tmpdir(), 'evidence-harness-spec-'));
  const extension = /\.json$/i.test(new URL(url).pathname) ? '.json' : '.yaml';
  const file = join(folder, `openapi${extension}`);
  try {
    await writeFile(file, response.bodyText, { mode: 0o600 });
    return await options.read(file);
  } catch (error) {
    if (error instanceof InvalidSpecError) throw new InvalidSpecError(error.message.split(file).join(url));
    throw error;
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}
