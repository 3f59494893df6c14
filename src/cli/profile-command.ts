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
import { currentFormat, entryNames } from '../profile/entries.js';
import { ProfileFileError, readProfileFile, readProfileForUpgrade } from '../profile/load.js';
import { defaultEntries, ProfileError } from '../profile/profile.js';
import { ProfileUpgradeError, upgradedProfileText } from '../profile/upgrade.js';
import { entryMeaning, flowYaml, profileYaml } from '../profile/write.js';
import { type Command, type CommandIo, diagnostic, exitCodes, UsageError } from './command.js';
import { type OptionTable, optionsHelp, parseOptions } from './options.js';
import { profileSchemaReference } from './profile-schema-ref.js';

export const profileOptions = {
  init: { kind: 'boolean', help: "write the default profile (the mock's behaviour without one), every entry with what it means" },
  out: {
    kind: 'string',
    value: 'FILE',
    help: 'with --init: write to FILE instead of standard output; with --upgrade: write there instead of in place (an existing file is kept unless --force)',
  },
  force: { kind: 'boolean', help: 'with --out: replace FILE if it exists' },
  check: {
    kind: 'string',
    value: 'FILE',
    help: 'read a profile file and print the entries it declares, or exit 2 naming each refused entry and its line',
  },
  upgrade: {
    kind: 'string',
    value: 'FILE',
    help: 'rewrite a format 1 profile as format 2, keeping its entries and comments: in place, or to --out FILE2; a format 2 file is left as it is',
  },
} as const satisfies OptionTable;

const help = `Usage: evidence-harness profile --init [--out FILE [--force]]
       evidence-harness profile --check FILE
       evidence-harness profile --upgrade FILE [--out FILE2 [--force]]

A server profile declares a server's own answers where the contract says "not shown": error
codes and statuses per situation, how a replay is compared, how callers are identified, the
job timeline, the health body (docs/profiles.md). The runner learns one
(conformance --write-profile FILE) and holds the server to it (conformance --profile FILE);
the mock serves it (mock --profile FILE).

Options:
${optionsHelp(profileOptions)}

Exit codes: 0 written, valid or already format 2, 2 refused profile or usage error.

Examples:
  evidence-harness profile --init --out profile.yaml
  evidence-harness profile --check profile.yaml
  evidence-harness profile --upgrade profile.yaml
`;

/** The default profile as a file: every entry, with what it means. */
export function defaultProfileText(options: { file?: string } = {}): string {
  return profileYaml({
    ...(options.file === undefined ? {} : { schema: profileSchemaReference(options.file) }),
    // Every entry of the table, whoever added it: the defaults are typed to hold each one.
    entries: Object.fromEntries(entryNames.map((name) => [name, defaultEntries[name]])),
    header: [
      'evidence-harness server profile: the defaults, exactly what the mock does without a profile.',
      "Change an entry to declare your server's own answer; delete the entries you do not want to declare.",
      'An error entry may add answers per operation and per condition: {status: 400, code: x,',
      'operations: {verifyReport: {status: 400, code: y}}, conditions: {minLength: {status: 400, code: z}}}.',
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

/**
 * `profile --upgrade FILE [--out FILE2]`: a format 1 file rewritten as format 2 (upgrade.ts),
 * through the one writer: in place by a temporary file renamed over it, or to FILE2. A format
 * 2 file is left alone; a file that cannot be read or upgraded is one line on stderr, exit 2.
 */
async function upgradeProfile(options: { file: string; out: string | undefined; force: boolean; io: CommandIo }): Promise<number> {
  const { file, out, force, io } = options;
  if (force && out === undefined) throw new UsageError('--force goes with --out FILE.');
  const refuse = (why: string) => {
    io.stderr(diagnostic(`profile: --upgrade ${file}: not upgraded: ${why.replace(/\s*\n\s*/g, '; ')}`));
    return exitCodes.usage;
  };
  let read: Awaited<ReturnType<typeof readProfileForUpgrade>>;
  try {
    read = await readProfileForUpgrade(file);
  } catch (error) {
    if (!(error instanceof ProfileFileError)) throw error;
    return refuse(error.message);
  }
  if (read.format === currentFormat) {
    io.stdout(`${file} is already profile format ${currentFormat}: left as it is\n`);
    return exitCodes.ok;
  }
  let text: string;
  try {
    text = upgradedProfileText({ text: read.text, document: read.document, json: /\.json$/i.test(file) || /^\s*\{/.test(read.text) });
  } catch (error) {
    if (!(error instanceof ProfileUpgradeError) && !(error instanceof ProfileError)) throw error;
    return refuse(error.message);
  }
  const target = out ?? file;
  if (out !== undefined) {
    const refusal = await outProblem(out, force);
    if (refusal) return refuse(refusal);
  } else {
    // In place: a link there is refused like any output's, never replaced by a file of its own.
    try {
      await prepareOutputTarget({ path: file, label: '--upgrade' });
    } catch (error) {
      if (!(error instanceof OutputFileError)) throw error;
      return refuse(error.message);
    }
  }
  try {
    await writeOutputFile({
      path: target,
      data: text,
      label: out === undefined ? '--upgrade' : '--out',
      replace: out === undefined || force,
    });
  } catch (error) {
    if (!(error instanceof OutputFileError)) throw error;
    return refuse(error.message);
  }
  io.stdout(`upgraded ${file} to profile format ${currentFormat}${out === undefined ? ' in place' : `: wrote ${out}`}\n`);
  return exitCodes.ok;
}

export const profileCommand: Command = {
  name: 'profile',
  summary: 'write the default server profile, check a profile file, or upgrade one to format 2',
  help,
  optionTables: { profile: profileOptions },
  async run(argv, io) {
    const { values } = parseOptions(profileOptions, argv);
    const modes = [values.init === true, values.check !== undefined, values.upgrade !== undefined].filter(Boolean).length;
    if (modes !== 1)
      throw new UsageError(
        modes > 1 ? '--init, --check and --upgrade go alone; give one.' : 'give --init, --check FILE or --upgrade FILE.',
      );
    if (values.upgrade !== undefined) return upgradeProfile({ file: values.upgrade, out: values.out, force: values.force === true, io });
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
