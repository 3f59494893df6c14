/**
 * @module cli/write-profile
 * `conformance --write-profile FILE` (A-50, A-52): checks FILE at start like every other output
 * (src/files), then writes what the run learnt of the server's profile
 * (src/conformance/profile/learn.ts) as YAML with a comment per entry saying what was seen, and
 * says on stderr which entries no answer showed, which were answered two ways and which were
 * seen but not learnt. An interrupted run writes no profile (A-52): its gaps would read as
 * "not seen" and be served to client teams as the server's word.
 */
import type { ConformanceReport } from '../conformance/index.js';
import type { Disagreement, LearntProfile, ProfileLearner } from '../conformance/profile/learn.js';
import { registeredAuthScheme } from '../contract/auth-schemes.js';
import { OutputFileError, writeOutputFile } from '../files/output-file.js';
import { maxProfileBytes } from '../profile/load.js';
import { profileShapeProblem } from '../profile/profile.js';
import { profileYaml } from '../profile/write.js';
import { askedOnlyByTheLearner, type ProfileLearning } from '../proxy/profile-learning.js';
import { type CommandIo, diagnostic } from './command.js';
import { profileSchemaReference } from './profile-schema-ref.js';

/**
 * A header value's scheme as a profile may record it: the registry's spelling of a registered
 * HTTP authentication scheme, `custom` for any other first word (it may be a part of the
 * credential: `sk_live_… v2`), `any` for a value of one word. Never any part of the value.
 */
export function schemeOf(value: string): string {
  const first = /^(\S+) +\S/.exec(value.trim())?.[1];
  if (first === undefined) return 'any';
  return registeredAuthScheme(first) ?? 'custom';
}

/**
 * The header naming the run's first caller, when --header gave exactly one, with the scheme both
 * callers' values start with (or 'any').
 */
export function callerOf(
  first: Readonly<Record<string, string>>,
  second: Readonly<Record<string, string>>,
): { header: string; scheme: string } | undefined {
  const names = Object.keys(first);
  if (names.length !== 1) return undefined;
  const header = names[0]!;
  const other = Object.entries(second).find(([name]) => name.toLowerCase() === header.toLowerCase())?.[1];
  const scheme = schemeOf(first[header]!);
  const otherScheme = other === undefined ? scheme : schemeOf(other);
  return { header, scheme: scheme === otherScheme ? scheme : 'any' };
}

/**
 * Why an entry answered several ways was left out, saying which requests got which answer:
 * the same requests (one operation, one condition) answered differently, which the run cannot
 * tell apart. Answers that differ by operation or condition are learnt as parts, never here.
 */
export function disagreementText(item: Disagreement): string {
  const answers = item.answers.map((answer) => `${answer.value} ×${answer.count} (e.g. ${answer.seen})`).join('; ');
  return `the same requests (${item.at ?? 'every request of the entry'}) got ${item.answers.length} different answers, which this run does not tell apart by operation or condition: ${answers}`;
}

/**
 * The file's closing comment blocks: "Not learnt" (each entry left out, and why: not seen,
 * answered several ways, not one a profile may hold) and, last, what the run saw that format 2
 * cannot express, so no reader takes the entries for all of a server's decisions.
 */
export function learntProfileBlocks(
  learnt: LearntProfile,
  options: {
    /** What the file says first under "Not learnt": by default, the entries no answer of the run showed. */
    readonly unseen?: readonly string[];
    /** Who saw what is not expressible: `this run`, `the traffic`. */
    readonly seer?: string;
  } = {},
): { readonly title: string; readonly items: readonly string[] }[] {
  const seer = options.seer ?? 'this run';
  const notLearnt = [
    ...(options.unseen ?? (learnt.notObserved.length > 0 ? [`not seen in this run: ${learnt.notObserved.join(', ')}`] : [])),
    // Each as stderr says it, so the file says all stderr says.
    ...learnt.disagreements.map((item) => `${item.entry} not learnt: ${disagreementText(item)}`),
    ...learnt.notLearnt.map((item) => `${item.entry} not learnt: ${item.reason}`),
  ];
  return [
    ...(notLearnt.length > 0
      ? [{ title: 'Not learnt (left out: the mock keeps its default for each; docs/profiles.md):', items: notLearnt }]
      : []),
    {
      title: `Not expressible in profile format 2 (what ${seer} saw that no entry can hold):`,
      items: learnt.notExpressible.length > 0 ? learnt.notExpressible : [`nothing ${seer} saw.`],
    },
  ];
}

/** The stderr line of a run stopped by a signal: no profile is written, a file already there is left as it was. */
export const interruptedProfileLine = 'conformance: --write-profile: no profile written: the run was interrupted';

/**
 * Writes a learnt profile through the one writer (src/files) and says on stderr what it holds:
 * the one path of `conformance --write-profile`, `proxy --write-profile` and `profile --from-har`.
 * The file is held to the reader's bounds first; a failed write throws OutputFileError.
 */
export async function writeProfileFile(options: {
  learnt: LearntProfile;
  file: string;
  io: CommandIo;
  /** The command and its option, as stderr names them: `conformance: --write-profile`. */
  command: string;
  label: string;
  /** The file's opening comment lines (scrubbed already). */
  header: readonly string[];
  /** The rest of the stderr line after "wrote the server's profile to FILE: ". */
  counts: string;
  blocks: ReturnType<typeof learntProfileBlocks>;
  /** Further stderr lines after the not-learnt ones. */
  notes?: readonly string[];
  /** False: an existing file is kept (`profile --out` without --force). Default true. */
  replace?: boolean;
}): Promise<void> {
  const { learnt, file, io, command, label } = options;
  const text = profileYaml({
    entries: learnt.entries,
    comments: learnt.comments,
    header: [...options.header],
    blocks: options.blocks,
    schema: profileSchemaReference(file),
  });
  // The learner held each entry to the profile's schema; the file as a whole is held to the reader's bounds too.
  const whole = profileShapeProblem(learnt.entries) ?? (Buffer.byteLength(text) > maxProfileBytes ? 'it is over 256 KiB' : undefined);
  if (whole) throw new OutputFileError({ shown: `${label} ${file}`, reason: `not written: ${whole}` });
  // A failed write throws, as a report's does: the command then exits naming the file.
  await writeOutputFile({ path: file, data: text, label, replace: options.replace ?? true });
  io.stderr(diagnostic(`${command}: wrote the server's profile to ${file}: ${options.counts}`));
  for (const item of learnt.disagreements)
    io.stderr(diagnostic(`${command}: ${label}: ${item.entry} not learnt: ${disagreementText(item)}`));
  for (const item of learnt.notLearnt) io.stderr(diagnostic(`${command}: ${label}: ${item.entry} not learnt: ${item.reason}`));
  for (const line of options.notes ?? []) io.stderr(diagnostic(`${command}: ${label}: ${line}`));
  for (const line of learnt.notExpressible) io.stderr(diagnostic(`${command}: ${label}: not expressible in profile format 2: ${line}`));
}

export async function writeLearntProfile(options: {
  learner: ProfileLearner;
  file: string;
  caller: { header: string; scheme: string } | undefined;
  io: CommandIo;
  report: ConformanceReport;
  /** The run's scrubber: nothing a server echoed of a credential reaches the file. */
  scrub: (text: string) => string;
}): Promise<void> {
  const { learner, file, io, report, scrub } = options;
  const learnt = learner.result({ ...(options.caller ? { caller: options.caller } : {}), scrub });
  await writeProfileFile({
    learnt,
    file,
    io,
    command: 'conformance',
    label: '--write-profile',
    header: [
      scrub(`evidence-harness server profile learnt from ${report.target} (seed ${report.seed}, run id ${report.runId}).`),
      'Review each entry, then: conformance --profile FILE holds the server to it; mock --profile FILE serves it (docs/profiles.md).',
    ],
    blocks: learntProfileBlocks(learnt),
    counts: `${Object.keys(learnt.entries).length} entries learnt, ${learnt.notObserved.length} not seen${learnt.notLearnt.length > 0 ? `, ${learnt.notLearnt.length} seen but not learnt` : ''}`,
  });
}

/**
 * `proxy --write-profile FILE` and `profile --from-har`: the profile the traffic decided, each
 * entry the traffic did not decide listed as not learnt with why: not seen in the traffic, or
 * asked only by the learner's own questions (A-69: nothing is sent to ask them).
 */
export async function writeTrafficProfile(options: {
  learning: ProfileLearning;
  file: string;
  io: CommandIo;
  command: 'proxy' | 'profile';
  label: string;
  /** Whose traffic: the upstream, or the cassette and its server. */
  source: string;
  /** The scrubber that learnt the traffic's credentials: none reaches the file. */
  scrub: (text: string) => string;
  replace?: boolean;
}): Promise<void> {
  const { io, scrub } = options;
  const traffic = options.learning.result(scrub);
  const { learnt, askedOnly } = traffic;
  const unseen = [
    ...(learnt.notObserved.length > 0 ? [`not seen in the traffic: ${learnt.notObserved.join(', ')}`] : []),
    ...(askedOnly.length > 0
      ? [
          `asked only by the learner's own questions (the proxy sends no request of its own; conformance --write-profile asks them): ${askedOnly.map((entry) => `${entry} (${askedOnlyByTheLearner[entry]})`).join(', ')}`,
        ]
      : []),
  ];
  await writeProfileFile({
    learnt,
    file: options.file,
    io,
    command: options.command,
    label: options.label,
    header: [
      scrub(
        `evidence-harness server profile learnt from the traffic of ${options.source} (${traffic.exchanges} exchanges; no request of its own).`,
      ),
      'Review each entry, then: conformance --profile FILE holds the server to it; mock --profile FILE serves it (docs/profiles.md).',
    ],
    blocks: learntProfileBlocks(learnt, { unseen, seer: 'the traffic' }),
    counts: `${Object.keys(learnt.entries).length} entries learnt from ${traffic.exchanges} exchanges, ${learnt.notObserved.length} not seen in the traffic, ${askedOnly.length} asked only by the learner's own questions${learnt.notLearnt.length > 0 ? `, ${learnt.notLearnt.length} seen but not learnt` : ''}`,
    ...(options.replace === undefined ? {} : { replace: options.replace }),
  });
}
