/**
 * @module cli/profile-command
 * `evidence-harness profile`: writes the default server profile (`--init`, today's behaviour,
 * each entry with what it means) and checks a profile file (`--check FILE`), through the one
 * profile reader (src/profile/load.ts). docs/profiles.md. `--out FILE` is checked before
 * anything is written and written through the one writer (src/files): never through a link or
 * into a pipe or device, by a temporary file renamed over it (--force) or linked to its name
 * (without: an existing file is kept).
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { OutputFileError, prepareOutputTarget, writeOutputFile } from '../files/output-file.js';
import { entryNames } from '../profile/entries.js';
import { ProfileFileError, readProfileFile } from '../profile/load.js';
import { defaultEntries } from '../profile/profile.js';
import { entryMeaning, flowYaml, profileYaml } from '../profile/write.js';
import { type Command, diagnostic, exitCodes, UsageError } from './command.js';
import { type OptionTable, optionsHelp, parseOptions } from './options.js';
import { profileSchemaReference } from './profile-schema-ref.js';

export const profileOptions = {
  init: { kind: 'boolean', help: "write the default profile (the mock's behaviour without one), every entry with what it means" },
  out: {
    kind: 'string',
    value: 'FILE',
    help: 'with --init: write to FILE instead of standard output (an existing file is kept unless --force)',
  },
  force: { kind: 'boolean', help: 'with --out: replace FILE if it exists' },
  check: {
    kind: 'string',
    value: 'FILE',
    help: 'read a profile file and print the entries it declares, or exit 2 naming each refused entry and its line',
  },
} as const satisfies OptionTable;

const help = `Usage: evidence-harness profile --init [--out FILE [--force]]
       evidence-harness profile --check FILE

A server profile declares a server's own answers where the contract says "not shown": error
codes and statuses per situation, how a replay is compared, how callers are identified, the
job timeline, the health body (docs/profiles.md). The runner learns one
(conformance --write-profile FILE) and holds the server to it (conformance --profile FILE);
the mock serves it (mock --profile FILE).

Options:
${optionsHelp(profileOptions)}

Exit codes: 0 written or valid, 2 refused profile or usage error.

Examples:
  evidence-harness profile --init --out profile.yaml
  evidence-harness profile --check profile.yaml
`;

/** The default profile as a file: every entry, with what it means. */
export function defaultProfileText(options: { file?: string } = {}): string {
  return profileYaml({
    ...(options.file === undefined ? {} : { schema: profileSchemaReference(options.file) }),
    entries: defaultEntries,
    header: [
      'evidence-harness server profile: the defaults, exactly what the mock does without a profile.',
      "Change an entry to declare your server's own answer; delete the entries you do not want to declare.",
      'What each entry means: docs/profiles.md. Check the file: evidence-harness profile --check FILE',
    ],
    comments: Object.fromEntries(entryNames.map((name) => [name, [entryMeaning(name)]])),
  });
}

/**
 * Why `--out FILE` cannot be written, found before anything is: a link, pipe, device or folder
 * there; a file there without --force; a folder on the path that cannot be made or written in.
 */
async function outProblem(file: string, force: boolean): Promise<string | undefined> {
  if (file === '') return '--out needs a file name, for example --out profile.yaml';
  try {
    await prepareOutputTarget({ path: file, label: '--out' });
  } catch (error) {
    if (error instanceof OutputFileError) return `${error.message}.`;
    throw error;
  }
  if (!force && existsSync(resolve(file))) return `${file} exists; give --force to replace it, or another --out.`;
  return undefined;
}

export const profileCommand: Command = {
  name: 'profile',
  summary: 'write the default server profile, or check a profile file',
  help,
  optionTables: { profile: profileOptions },
  async run(argv, io) {
    const { values } = parseOptions(profileOptions, argv);
    if (values.init === (values.check !== undefined))
      throw new UsageError(values.init ? '--init and --check go alone; give one.' : 'give --init or --check FILE.');
    if (values.check !== undefined) {
      try {
        const profile = await readProfileFile(values.check);
        const lines = [...profile.declared].map((name) => `  ${name}: ${flowYaml(profile.entries[name])}`);
        io.stdout(
          `${values.check}: a valid profile declaring ${profile.declared.size} of ${entryNames.length} entries${lines.length ? ':' : '.'}\n${lines.join('\n')}${lines.length ? '\n' : ''}`,
        );
        return exitCodes.ok;
      } catch (error) {
        if (!(error instanceof ProfileFileError)) throw error;
        io.stderr(diagnostic(`profile: ${error.message}`));
        return exitCodes.usage;
      }
    }
    if (values.force && values.out === undefined) throw new UsageError('--force goes with --out FILE.');
    const text = defaultProfileText();
    if (values.out === undefined) {
      io.stdout(text);
      return exitCodes.ok;
    }
    const refusal = await outProblem(values.out, values.force === true);
    if (refusal) {
      io.stderr(diagnostic(`profile: ${refusal}`));
      return exitCodes.usage;
    }
    try {
      await writeOutputFile({
        path: values.out,
        data: defaultProfileText({ file: values.out }),
        label: '--out',
        replace: values.force === true,
      });
    } catch (error) {
      if (!(error instanceof OutputFileError)) throw error;
      io.stderr(
        diagnostic(
          error.reason.startsWith('a file is already there')
            ? `profile: ${values.out} exists; give --force to replace it, or another --out.`
            : `profile: ${error.message}.`,
        ),
      );
      return exitCodes.usage;
    }
    io.stdout(`wrote the default profile to ${values.out} (${entryNames.length} entries)\n`);
    return exitCodes.ok;
  },
};
