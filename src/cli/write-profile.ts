/**
 * @module cli/write-profile
 * `conformance --write-profile FILE` (A-50): writes what the run learnt of the server's profile
 * (src/conformance/profile/learn.ts) as YAML with a comment per entry saying what was seen, and
 * says on stderr which entries no answer showed and which were answered two ways.
 */
import { writeFile } from 'node:fs/promises';
import type { ConformanceReport } from '../conformance/index.js';
import type { ProfileLearner } from '../conformance/profile/learn.js';
import { profileYaml } from '../profile/write.js';
import { type CommandIo, diagnostic } from './command.js';

/** A header's scheme: the first word of a value such as `Bearer abc`, else 'any'. Never the value. */
function schemeOf(value: string | undefined): string | undefined {
  return value === undefined ? undefined : (/^([A-Za-z][A-Za-z0-9._~+-]{0,31}) +\S/.exec(value)?.[1] ?? 'any');
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
  const scheme = schemeOf(first[header]);
  const otherScheme = other === undefined ? scheme : schemeOf(other);
  return { header, scheme: scheme !== undefined && scheme.toLowerCase() === otherScheme?.toLowerCase() ? scheme : 'any' };
}

export async function writeLearntProfile(options: {
  learner: ProfileLearner;
  file: string;
  caller: { header: string; scheme: string } | undefined;
  io: CommandIo;
  report: ConformanceReport;
}): Promise<void> {
  const { learner, file, io, report } = options;
  const learnt = learner.result(options.caller ? { caller: options.caller } : {});
  const footer = [
    ...(learnt.notObserved.length > 0
      ? [`Not seen in this run, left out (the mock keeps its default): ${learnt.notObserved.join(', ')}`]
      : []),
    ...learnt.disagreements.map(
      (item) =>
        `${item.entry} left out: answered ${item.answers.length} ways: ${item.answers.map((answer) => `${answer.value} ×${answer.count} (${answer.seen})`).join('; ')}`,
    ),
  ];
  const text = profileYaml({
    entries: learnt.entries,
    comments: learnt.comments,
    header: [
      `evidence-harness server profile learnt from ${report.target} (seed ${report.seed}, run id ${report.runId}).`,
      'Review each entry, then: conformance --profile FILE holds the server to it; mock --profile FILE serves it (docs/profiles.md).',
    ],
    footer,
  });
  await writeFile(file, text);
  const declared = Object.keys(learnt.entries).length;
  io.stderr(
    diagnostic(`conformance: wrote the server's profile to ${file}: ${declared} entries learnt, ${learnt.notObserved.length} not seen`),
  );
  for (const item of learnt.disagreements)
    io.stderr(
      diagnostic(
        `conformance: --write-profile: ${item.entry} disagreed with itself, left out: ${item.answers.map((answer) => `${answer.value} ×${answer.count}, e.g. ${answer.seen}`).join('; ')}`,
      ),
    );
}
