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
import { Scrubber } from '../conformance/secrets.js';
import { DocumentFileError, readDocumentFile } from '../documents/index.js';
import { specFileProblem } from '../documents/spec-file.js';
import { OutputFileError, prepareOutputTarget, writeOutputFile } from '../files/output-file.js';
import { type ContractDocument, InvalidSpecError, loadContract } from '../openapi/document.js';
import { type DiffFormat, diffProfiles, formatDiff, mergeProfiles } from '../profile/compare.js';
import { currentFormat, type EntryName, entryNames } from '../profile/entries.js';
import { ProfileFileError, readProfileFile, readProfileForUpgrade } from '../profile/load.js';
import { defaultEntries, ProfileError, type ServerProfile } from '../profile/profile.js';
import { ProfileUpgradeError, upgradedProfileText } from '../profile/upgrade.js';
import { entryMeaning, flowYaml, profileYaml } from '../profile/write.js';
import { HarTrafficError, harEntries, harLimits, replayHar } from '../proxy/har-traffic.js';
import { ProfileLearning } from '../proxy/profile-learning.js';
import { type Command, type CommandIo, diagnostic, exitCodes, UsageError } from './command.js';
import { type OptionTable, optionsHelp, parseOptions } from './options.js';
import { profileSchemaReference } from './profile-schema-ref.js';
import { specAdvice } from './spec-file.js';
import { schemeOf, writeTrafficProfile } from './write-profile.js';

export const profileOptions = {
  init: { kind: 'boolean', help: "write the default profile (the mock's behaviour without one), every entry with what it means" },
  out: {
    kind: 'string',
    value: 'FILE',
    help: 'with --init: write to FILE instead of standard output; with --merge: the file to write; with --upgrade: write there instead of in place (an existing file is kept unless --force)',
  },
  force: { kind: 'boolean', help: 'with --out: replace FILE if it exists' },
  check: {
    kind: 'string',
    value: 'FILE',
    help: 'read a profile file and print the entries it declares, or exit 2 naming each refused entry and its line',
  },
  diff: {
    kind: 'boolean',
    help: 'with two files OLD NEW: list the declared entries added, removed or changed (exit 1 when any differ)',
  },
  format: { kind: 'string', value: 'FORMAT', help: 'with --diff: text (default), json or markdown' },
  merge: {
    kind: 'boolean',
    help: "with two files A B and --out FILE: A's declared entries with B's laid over them, each entry whole",
  },
  upgrade: {
    kind: 'string',
    value: 'FILE',
    help: 'rewrite a format 1 profile as format 2, keeping its entries and comments: in place, or to --out FILE2; a format 2 file is left as it is',
  },
  'from-har': {
    kind: 'string',
    value: 'FILE.har',
    help: "with --out FILE: learn the server's profile from a HAR 1.2 file (the proxy's --record cassette or a browser's export, at most 64 MiB and 10,000 entries), its entries replayed in order as the proxy reads traffic; nothing is sent",
  },
  'base-url': {
    kind: 'string',
    value: 'URL',
    help: "with --from-har: the server whose entries are read (default: the server of the first entry that is one of the contract's operations); other entries are skipped and counted",
  },
  spec: { kind: 'string', value: 'FILE', help: 'with --from-har: the OpenAPI 3.1 document (default: the bundled spec/openapi.yaml)' },
} as const satisfies OptionTable;

const help = `Usage: evidence-harness profile --init [--out FILE [--force]]
       evidence-harness profile --check FILE
       evidence-harness profile --diff OLD NEW [--format text|json|markdown]
       evidence-harness profile --merge A B --out FILE [--force]
       evidence-harness profile --upgrade FILE [--out FILE2 [--force]]
       evidence-harness profile --from-har FILE.har --out FILE [--force] [--base-url URL] [--spec FILE]

A server profile declares a server's own answers where the contract says "not shown": error
codes and statuses per situation, how a replay is compared, how callers are identified, the
job timeline, the health body (docs/profiles.md). The runner learns one
(conformance --write-profile FILE) and holds the server to it (conformance --profile FILE);
the mock serves it (mock --profile FILE). A profile is also learnt from traffic, without a
request of its own: live (proxy --write-profile FILE) or from a cassette (--from-har).

Options:
${optionsHelp(profileOptions)}

Exit codes: 0 written, valid, already format 2 or (--diff) the same; 1 (--diff) entries
differ; 2 refused profile or usage error.

Examples:
  evidence-harness profile --init --out profile.yaml
  evidence-harness profile --check profile.yaml
  evidence-harness profile --diff profile.yaml relearnt.yaml --format markdown
  evidence-harness profile --merge learnt.yaml hand-edited.yaml --out profile.yaml --force
  evidence-harness profile --upgrade profile.yaml
  evidence-harness profile --from-har staging.har --out profile.yaml
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

/** Both files read, or undefined after saying on stderr which one was refused and why. */
async function readBoth(files: readonly [string, string], io: CommandIo): Promise<[ServerProfile, ServerProfile] | undefined> {
  try {
    return [await readProfileFile(files[0]), await readProfileFile(files[1])];
  } catch (error) {
    if (!(error instanceof ProfileFileError)) throw error;
    io.stderr(diagnostic(`profile: ${error.message}`));
    return undefined;
  }
}

const diffFormats: readonly DiffFormat[] = ['text', 'json', 'markdown'];

async function diffFiles(options: { files: readonly [string, string]; format: string | undefined; io: CommandIo }): Promise<number> {
  const format = (options.format ?? 'text') as DiffFormat;
  if (!diffFormats.includes(format))
    throw new UsageError(`--format must be text, json or markdown, got ${JSON.stringify(format.slice(0, 40))}.`);
  const profiles = await readBoth(options.files, options.io);
  if (!profiles) return exitCodes.usage;
  const changes = diffProfiles(profiles[0], profiles[1]);
  options.io.stdout(formatDiff(changes, { format, before: options.files[0], after: options.files[1] }));
  return changes.length === 0 ? exitCodes.ok : exitCodes.failed;
}

async function mergeFiles(options: {
  files: readonly [string, string];
  out: string | undefined;
  force: boolean;
  io: CommandIo;
}): Promise<number> {
  const { files, io } = options;
  if (options.out === undefined) throw new UsageError('--merge writes a file: give --out FILE.');
  const refusal = await outProblem(options.out, options.force);
  if (refusal) {
    io.stderr(diagnostic(`profile: ${refusal}`));
    return exitCodes.usage;
  }
  const profiles = await readBoth(files, io);
  if (!profiles) return exitCodes.usage;
  const merged = mergeProfiles(profiles[0], profiles[1]);
  const text = profileYaml({
    schema: profileSchemaReference(options.out),
    entries: merged.entries,
    header: [`evidence-harness server profile: ${files[0]} with ${files[1]} laid over it, entry by entry (profile --merge).`],
    comments: Object.fromEntries(
      Object.entries(merged.from).map(([entry, side]) => [
        entry,
        [
          merged.overridden.includes(entry as EntryName)
            ? `from ${files[1]}; ${files[0]} declared ${flowYaml(profiles[0].entries[entry as EntryName])}`
            : `from ${side === 'overlay' ? files[1] : files[0]}`,
        ],
      ]),
    ),
  });
  try {
    await writeOutputFile({ path: options.out, data: text, label: '--out', replace: options.force });
  } catch (error) {
    if (!(error instanceof OutputFileError)) throw error;
    io.stderr(diagnostic(`profile: ${error.message}.`));
    return exitCodes.usage;
  }
  for (const entry of merged.overridden) io.stderr(diagnostic(`profile: --merge: ${entry}: ${files[1]}'s answer replaces ${files[0]}'s`));
  io.stdout(
    `wrote ${options.out}: ${Object.keys(merged.entries).length} entries (${merged.overridden.length} of ${files[0]}'s replaced by ${files[1]}'s)\n`,
  );
  return exitCodes.ok;
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

/**
 * `profile --from-har FILE.har --out FILE` (A-69): the HAR read through the documents door
 * (bounded), its entries replayed through the proxy's pipeline (proxy/har-traffic.ts) into the
 * learner, and the profile written as `proxy --write-profile` writes it. A file that is no HAR
 * this reader takes is one line on stderr, exit 2; skipped entries are counted on one line.
 */
async function profileFromHar(options: {
  har: string;
  out: string | undefined;
  force: boolean;
  base: string | undefined;
  spec: string | undefined;
  io: CommandIo;
}): Promise<number> {
  const { har, out, io } = options;
  if (out === undefined) throw new UsageError('--from-har writes a file: give --out FILE.');
  if (options.base !== undefined && (!/^https?:\/\/[^/]/i.test(options.base) || !URL.canParse(options.base)))
    throw new UsageError(`--base-url must be an http:// or https:// URL, got '${options.base.slice(0, 80)}'.`);
  if (options.spec !== undefined) {
    const problem = specFileProblem(options.spec);
    if (problem) throw new UsageError(`--spec: ${problem}; ${specAdvice}`);
  }
  const refuse = (why: string) => {
    io.stderr(diagnostic(`profile: --from-har ${har}: ${why}`));
    return exitCodes.usage;
  };
  const refusal = await outProblem(out, options.force);
  if (refusal) return refuse(`not read: ${refusal}`);
  let entries: readonly unknown[];
  try {
    entries = harEntries((await readDocumentFile({ path: har, maxBytes: harLimits.maxBytes })).text);
  } catch (error) {
    if (error instanceof HarTrafficError || error instanceof DocumentFileError) return refuse(`not read: ${error.message}.`);
    throw error;
  }
  let contract: ContractDocument;
  try {
    contract = await loadContract(options.spec === undefined ? {} : { source: options.spec });
  } catch (error) {
    if (error instanceof InvalidSpecError) return refuse(`invalid OpenAPI document: ${error.message.split('\n')[0]}`);
    throw error;
  }
  const scrubber = new Scrubber();
  const learning = new ProfileLearning({ isCredentialHeader: (name) => scrubber.isCredentialHeader(name), schemeOf });
  const replayed = await replayHar({
    entries,
    contract,
    watcher: learning,
    scrubber,
    ...(options.base === undefined ? {} : { base: options.base }),
  });
  const { skipped } = replayed;
  const counts = [
    skipped.outside > 0
      ? `${skipped.outside} outside ${replayed.server ?? "the contract's server (no entry is one of its operations)"}`
      : '',
    skipped.answeredByProxy > 0 ? `${skipped.answeredByProxy} answered by the proxy itself` : '',
    skipped.unanswered > 0 ? `${skipped.unanswered} without an answer` : '',
    skipped.malformed > 0 ? `${skipped.malformed} malformed` : '',
  ].filter((part) => part !== '');
  io.stderr(
    diagnostic(
      `profile: --from-har ${har}: ${replayed.read} of ${entries.length} entries read${counts.length > 0 ? `; skipped: ${counts.join(', ')}` : ''}`,
    ),
  );
  try {
    await writeTrafficProfile({
      learning,
      file: out,
      io,
      command: 'profile',
      label: '--out',
      source: `${har}${replayed.server ? ` (${replayed.server})` : ''}`,
      scrub: (text) => scrubber.scrub(text),
      replace: options.force,
    });
  } catch (error) {
    if (!(error instanceof OutputFileError)) throw error;
    return refuse(
      error.reason.startsWith('a file is already there')
        ? `${out} exists; give --force to replace it, or another --out.`
        : `${error.message}.`,
    );
  }
  return exitCodes.ok;
}

export const profileCommand: Command = {
  name: 'profile',
  summary: 'write the default server profile, check, upgrade, compare or merge profile files',
  help,
  optionTables: { profile: profileOptions },
  async run(argv, io) {
    const { values, positionals } = parseOptions(profileOptions, argv, { allowPositionals: true });
    const modes = [
      values.init && '--init',
      values.check !== undefined && '--check',
      values.upgrade !== undefined && '--upgrade',
      values.diff && '--diff',
      values.merge && '--merge',
      values['from-har'] !== undefined && '--from-har',
    ];
    const chosen = modes.filter((mode): mode is string => typeof mode === 'string');
    if (chosen.length !== 1)
      throw new UsageError(
        chosen.length > 1
          ? `${chosen.join(' and ')} go alone; give one.`
          : 'give --init, --check FILE, --upgrade FILE, --diff OLD NEW, --merge A B --out FILE or --from-har FILE.har --out FILE.',
      );
    if (values.format !== undefined && !values.diff) throw new UsageError('--format goes with --diff.');
    if (values['from-har'] === undefined && (values.spec !== undefined || values['base-url'] !== undefined))
      throw new UsageError(`${values.spec !== undefined ? '--spec' : '--base-url'} goes with --from-har.`);
    if (values.diff || values.merge) {
      if (positionals.length !== 2)
        throw new UsageError(
          `${values.diff ? '--diff takes two profile files, OLD and NEW' : '--merge takes two profile files, A and B'} (got ${positionals.length}).`,
        );
      return values.diff
        ? diffFiles({ files: positionals as [string, string], format: values.format, io })
        : mergeFiles({ files: positionals as [string, string], out: values.out, force: values.force === true, io });
    }
    if (positionals.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(positionals[0]!.slice(0, 80))}.`);
    if (values['from-har'] !== undefined)
      return profileFromHar({
        har: values['from-har'],
        out: values.out,
        force: values.force === true,
        base: values['base-url'],
        spec: values.spec,
        io,
      });
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
