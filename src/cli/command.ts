/**
 * @module cli/command
 * The shape every subcommand shares, and the one helper through which the CLI speaks to
 * people: a fixed prefix on stderr for diagnostics, plain stdout for results.
 */
import type { OptionTable } from './options.js';

export interface CommandIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
}

export interface Command {
  readonly name: string;
  /** One line for the command list. */
  readonly summary: string;
  /** The full --help text. */
  readonly help: string;
  /** Its option tables (options.ts), by the command line they parse: `conformance`, `conformance replay`. */
  readonly optionTables: Readonly<Record<string, OptionTable>>;
  /** Runs the command; resolves to the process exit code. */
  run(argv: readonly string[], io: CommandIo): Promise<number>;
}

/** Exit codes shared by every command. */
export const exitCodes = { ok: 0, failed: 1, usage: 2 } as const;

/** Thrown for a command line that cannot be run; printed with the command's usage hint. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

export const messagePrefix = 'evidence-harness:';

export function diagnostic(message: string): string {
  return `${messagePrefix} ${message}\n`;
}

/** An integer option's value in [min, max], or undefined when the option was not given. */
export function integerOption(options: { value: string | undefined; name: string; min: number; max: number }): number | undefined {
  const { value, name, min, max } = options;
  if (value === undefined) return undefined;
  const number = Number(value);
  // Number('') and Number(' ') are 0: an empty value is a mistake, not a request for zero.
  if (value.trim() === '' || !Number.isInteger(number) || number < min || number > max)
    throw new UsageError(`--${name} must be an integer from ${min} to ${max}, got '${value}'.`);
  return number;
}

/** Size units a size option accepts, case-insensitive: decimal (kB, MB, GB) and binary (KiB, MiB, GiB). */
const sizeUnits = new Map<string, number>([
  ['', 1],
  ['b', 1],
  ['kb', 1000],
  ['mb', 1000 ** 2],
  ['gb', 1000 ** 3],
  ['kib', 1024],
  ['mib', 1024 ** 2],
  ['gib', 1024 ** 3],
]);

/** A number of bytes as a person would write it: 1048576 → '1MiB', 1500 → '1500 B'. */
export function formatSize(bytes: number): string {
  for (const [unit, size] of [
    ['GiB', 1024 ** 3],
    ['MiB', 1024 ** 2],
    ['KiB', 1024],
  ] as const) {
    if (bytes >= size && bytes % size === 0) return `${bytes / size}${unit}`;
  }
  return `${bytes} B`;
}

/** What a size option takes: a whole number with an optional unit of sizeUnits, in any case. */
export const sizePattern = /^(\d{1,16}) ?((?:[kKmMgG][iI]?)?[bB])?$/;

/**
 * A size option's value in bytes, in [min, max], or undefined when the option was not given:
 * a whole number with an optional unit (`1048576`, `512KiB`, `64MiB`, `1GiB`, `500kB`).
 */
export function sizeOption(options: { value: string | undefined; name: string; min: number; max: number }): number | undefined {
  const { value, name, min, max } = options;
  if (value === undefined) return undefined;
  const match = sizePattern.exec(value);
  const unit = match ? sizeUnits.get((match[2] ?? '').toLowerCase()) : undefined;
  const bytes = match && unit !== undefined ? Number(match[1]) * unit : Number.NaN;
  if (!(Number.isSafeInteger(bytes) && bytes >= min && bytes <= max)) {
    throw new UsageError(
      `--${name} must be a size from ${formatSize(min)} to ${formatSize(max)}, such as 1048576, 512KiB, 64MiB or 1GiB, got '${value}'.`,
    );
  }
  return bytes;
}

const durationUnits = { ms: 1, s: 1000, m: 60_000 } as const;

/**
 * A duration as a person writes it: 600000 → '10m', 5000 → '5s', 1500 → '1500ms'. The runner's
 * formatDuration says the same, but importing it here would load the runner for every command.
 */
function formatDurationMs(ms: number): string {
  if (ms % 60_000 === 0 && ms >= 60_000) return `${ms / 60_000}m`;
  if (ms % 1000 === 0 && ms >= 1000) return `${ms / 1000}s`;
  return `${ms}ms`;
}

/**
 * A duration option's value in ms, in [minMs, maxMs], or undefined when the option was not
 * given: '500ms', '30s', '10m'. A bare number is in `bareUnit` (what the option always took),
 * or refused when the option has none.
 */
export function durationOption(options: {
  value: string | undefined;
  name: string;
  bareUnit?: keyof typeof durationUnits;
  minMs: number;
  maxMs: number;
}): number | undefined {
  const { value, name } = options;
  if (value === undefined) return undefined;
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m)?\s*$/.exec(value);
  const unit = match?.[2] ?? options.bareUnit;
  if (!match || !unit) {
    throw new UsageError(
      `--${name} must be a duration such as 500ms, 30s or 10m${options.bareUnit ? ` (a bare number is in ${options.bareUnit})` : ''}, got '${value}'.`,
    );
  }
  const ms = Math.round(Number(match[1]) * durationUnits[unit as keyof typeof durationUnits]);
  if (ms < options.minMs || ms > options.maxMs)
    throw new UsageError(
      `--${name} must be from ${formatDurationMs(options.minMs)} to ${formatDurationMs(options.maxMs)}, got '${value}'.`,
    );
  return ms;
}
