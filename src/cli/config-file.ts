/**
 * @module cli/config-file
 * `evidence-harness.config.json` (or `.yaml`/`.yml`): the `mock` command's flags written down
 * once for a project, under the flags' own names, so the file reads like the command line it
 * replaces. Flags given on the command line win over the file. The file is validated by a zod
 * schema that is also published as `evidence-harness.config.schema.json` (editors complete and
 * check it through its `$schema`).
 */
import { existsSync } from 'node:fs';
import { dirname, extname, isAbsolute, join, resolve } from 'node:path';
import { z } from 'zod';
import { DocumentSyntaxError, parseDocumentText, withShortQuotes } from '../server/document-text.js';
import { readRegularFile, UserFileError } from '../server/regular-file.js';
import { UsageError } from './command.js';

/** The names looked for in the working folder, in this order, when no --config is given. */
export const configFileNames = ['evidence-harness.config.json', 'evidence-harness.config.yaml', 'evidence-harness.config.yml'] as const;

const size = z
  .union([z.number().int().min(1024), z.string().regex(/^\d{1,16} ?([kKmMgG]i?[bB]|[bB])?$/)])
  .describe('bytes, or a size with a unit: 512KiB, 64MiB, 1GiB, 500kB');

const mockOptions = z
  .object({
    port: z.number().int().min(0).max(65535).describe('port to listen on (default 4010; 0 picks a free one)'),
    host: z.string().min(1).describe('address to listen on (default 127.0.0.1)'),
    scenario: z.string().min(1).describe("a shipped scenario's name or a scenario file (relative to this file)"),
    seed: z.number().int().min(0).max(4294967295).describe('seed job ids and fractional faults'),
    'base-path': z.string().describe('serve the contract under a prefix, e.g. /api'),
    spec: z.string().describe('serve another version of the contract: an OpenAPI 3.1 document, a file or an http(s) URL'),
    'control-token': z.string().min(1).describe('token for the control API (/__mock/)'),
    'control-origin': z.array(z.string().min(1)).describe('origins whose web pages may call the control API'),
    'coverage-report': z
      .array(z.string().regex(/^(json|html)=.+$/))
      .describe('json=FILE or html=FILE: where to write the consumer coverage when the mock stops (relative to this file)'),
    quiet: z.boolean().describe('no per-request log lines'),
    watch: z.boolean().describe('reload the scenario file when it changes'),
    'tls-cert': z.string().min(1).describe('certificate (PEM) to serve HTTPS with (relative to this file)'),
    'tls-key': z.string().min(1).describe('private key (PEM) of the certificate (relative to this file)'),
    'max-jobs': z.number().int().min(1).max(100_000_000).describe('jobs kept'),
    'max-job-bytes': size,
    'max-key-bytes': size,
    'max-journal-bytes': size,
    'max-scenario-bytes': size,
    store: z
      .string()
      .regex(/^rediss?:\/\//)
      .describe('keep the mock state in Redis (redis://HOST:PORT[/DB]), shared by replicas; default in memory'),
    'store-namespace': z
      .string()
      .regex(/^[A-Za-z0-9._-]{1,64}$/)
      .describe('keep this mock apart from others on the same Redis (default evidence-harness)'),
  })
  .partial()
  .strict();

export const configSchema = z
  .object({
    $schema: z.string().optional(),
    mock: mockOptions.optional().describe("options of 'evidence-harness mock', named as its flags"),
  })
  .strict()
  .describe('evidence-harness configuration: each command’s options under the command’s name');

export type ConfigFile = z.infer<typeof configSchema>;

/** The JSON Schema published as evidence-harness.config.schema.json. */
export function publishedConfigSchema(): object {
  return {
    ...z.toJSONSchema(configSchema, { target: 'draft-2020-12', io: 'input' }),
    $id: 'https://evidence-harness.dev/evidence-harness.config.schema.json',
    title: 'evidence-harness configuration',
  };
}

/** Options whose value is a path: resolved against the config file's folder, not the working folder. */
const pathOptions = new Set(['tls-cert', 'tls-key']);

function looksLikePath(value: string): boolean {
  return /[/\\]/.test(value) || /\.(json|ya?ml)$/i.test(value);
}

export interface LoadedConfig {
  /** The file read, as found (relative to the working folder when discovered there). */
  readonly file: string;
  /** The file's `mock` options as command-line arguments, to go before the user's own. */
  readonly mockArguments: readonly string[];
}

/**
 * Finds and reads the configuration: `explicit` (--config) if given, else the first of
 * configFileNames in `cwd`, else none. Throws UsageError naming the file and the problem.
 */
export async function loadConfig(options: { explicit?: string; cwd: string }): Promise<LoadedConfig | undefined> {
  const file = options.explicit ?? configFileNames.find((name) => existsSync(join(options.cwd, name)));
  if (file === undefined) return undefined;
  const path = resolve(options.cwd, file);
  let text: string;
  try {
    // A regular file only, bounded, never a FIFO that would hold the start (regular-file.ts, A-27).
    ({ text } = await readRegularFile({ path }));
  } catch (error) {
    if (!(error instanceof UserFileError)) throw error;
    throw new UsageError(
      error.problem === 'missing'
        ? `--config: file not found: ${file} (resolved to ${path}). Pass the path of an evidence-harness.config.json or .yaml file.`
        : `--config: ${error.message.replace(path, file)}.`,
    );
  }
  const yaml = ['.yaml', '.yml'].includes(extname(path).toLowerCase());
  let value: unknown;
  try {
    value = await parseDocumentText({ text, yaml });
  } catch (error) {
    if (!(error instanceof DocumentSyntaxError)) throw error;
    const frame = error.frame === undefined ? '' : `:\n\n${error.frame.replace(/^/gm, '    ')}\n`;
    throw new UsageError(`${file} is not valid ${yaml ? 'YAML' : 'JSON'}: ${error.problem}${frame}`);
  }
  const parsed = configSchema.safeParse(value ?? {});
  if (!parsed.success) {
    // zod quotes unknown keys: short quotes only (document-text.ts).
    const problems = parsed.error.issues.map((issue) => withShortQuotes(`  /${issue.path.join('/')}: ${issue.message}`, text));
    throw new UsageError(
      `${file} is not a valid configuration:\n${problems.join('\n')}\nIts JSON Schema is evidence-harness.config.schema.json in this package; option names are the flags' ('evidence-harness mock --help').`,
    );
  }
  const folder = dirname(path);
  const mockArguments: string[] = [];
  for (const [name, setting] of Object.entries(parsed.data.mock ?? {})) {
    if (setting === undefined || setting === false) continue;
    if (setting === true) {
      mockArguments.push(`--${name}`);
      continue;
    }
    for (const item of Array.isArray(setting) ? setting : [setting]) {
      let text = String(item);
      const isPath = pathOptions.has(name) || (name === 'scenario' && looksLikePath(text));
      if (isPath && !isAbsolute(text)) text = resolve(folder, text);
      // json=FILE: the file, not the format, is relative to this file's folder.
      const report = name === 'coverage-report' ? /^(json|html)=(.+)$/.exec(text) : null;
      if (report && !isAbsolute(report[2]!)) text = `${report[1]}=${resolve(folder, report[2]!)}`;
      mockArguments.push(`--${name}=${text}`);
    }
  }
  return { file, mockArguments };
}

/**
 * The arguments a command parses: the config file's first, then the command line's, which win
 * (parseArgs keeps the last value of an option). A list option given on the command line
 * replaces the file's list instead of adding to it.
 */
export function withConfigArguments(options: {
  readonly config: readonly string[];
  readonly commandLine: readonly string[];
  readonly listOptions: readonly string[];
}): string[] {
  const given = new Set(options.commandLine.filter((argument) => argument.startsWith('--')).map((argument) => argument.split('=')[0]));
  const fromConfig = options.config.filter((argument) => {
    const name = argument.split('=')[0]!;
    return !(options.listOptions.includes(name.slice(2)) && given.has(name));
  });
  return [...fromConfig, ...options.commandLine];
}
