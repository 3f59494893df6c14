/**
 * @module cli/command
 * The shape every subcommand shares, and the one helper through which the CLI speaks to
 * people: a fixed prefix on stderr for diagnostics, plain stdout for results.
 */

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

/**
 * A size option's value in bytes, in [min, max], or undefined when the option was not given:
 * a whole number with an optional unit (`1048576`, `512KiB`, `64MiB`, `1GiB`, `500kB`).
 */
export function sizeOption(options: { value: string | undefined; name: string; min: number; max: number }): number | undefined {
  const { value, name, min, max } = options;
  if (value === undefined) return undefined;
  const match = /^(\d{1,16}) ?([A-Za-z]{0,3})$/.exec(value);
  const unit = match ? sizeUnits.get(match[2]!.toLowerCase()) : undefined;
  const bytes = match && unit !== undefined ? Number(match[1]) * unit : Number.NaN;
  if (!(Number.isSafeInteger(bytes) && bytes >= min && bytes <= max)) {
    throw new UsageError(
      `--${name} must be a size from ${formatSize(min)} to ${formatSize(max)}, such as 1048576, 512KiB, 64MiB or 1GiB, got '${value}'.`,
    );
  }
  return bytes;
}

/**
 * Runs a node:util parseArgs call, turning its errors into UsageErrors that say what to do
 * (a callback, so each command keeps parseArgs' precise inferred types).
 */
export function parseCommandLine<T>(parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    const message = (error as Error).message.replace(/\. To specify a positional.*$/s, '').replace(/\.?$/, '.');
    throw new UsageError(message);
  }
}
