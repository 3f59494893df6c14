/**
 * @module cli/options
 * One option table per command, from which the command line parser, the `--help` option list,
 * the config file's schema and docs/cli.md are all derived, so an option is written once and
 * the four cannot disagree (as vitest derives its CLI from one typed table).
 */
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { durationOption, integerOption, sizeOption, sizePattern, UsageError } from './command.js';
import { nearest } from './did-you-mean.js';

interface OptionBase {
  /** What the option does, one paragraph; --help wraps it. */
  readonly help: string;
  /** The value's placeholder in --help and docs: N, HOST, FILE. */
  readonly value?: string;
  /** A --help section other than the first (its heading is written by the command's help). */
  readonly section?: string;
  /** False for an option the config file does not take (such as --config itself). */
  readonly inConfig?: boolean;
}

/** A switch: present or not. */
export interface BooleanOption extends OptionBase {
  readonly kind: 'boolean';
}

/** Text, once or repeatable. */
export interface StringOption extends OptionBase {
  readonly kind: 'string';
  readonly multiple?: boolean;
  /** What the config file must match (the command checks the command line itself, in words). */
  readonly pattern?: RegExp;
  /** How a config file's relative path is resolved against the file's folder. */
  readonly path?: 'file' | 'file-or-name' | 'file-or-url' | 'format=file';
}

export interface IntegerOption extends OptionBase {
  readonly kind: 'integer';
  readonly min: number;
  readonly max: number;
}

/** Bytes, or a size with a unit (512KiB, 64MiB). */
export interface SizeOption extends OptionBase {
  readonly kind: 'size';
  readonly min: number;
  readonly max: number;
}

/** A duration with a unit (500ms, 30s, 10m); a bare number is in `bareUnit`, or refused. */
export interface DurationOption extends OptionBase {
  readonly kind: 'duration';
  readonly minMs: number;
  readonly maxMs: number;
  readonly bareUnit?: 'ms' | 's' | 'm';
}

export type OptionSpec = BooleanOption | StringOption | IntegerOption | SizeOption | DurationOption;

/** A command's options, keyed by the flag's name without its dashes. */
export type OptionTable = Readonly<Record<string, OptionSpec>>;

type ValueOf<S> = S extends { kind: 'boolean' }
  ? boolean
  : S extends { kind: 'string' }
    ? S extends { multiple: true }
      ? string[]
      : string | undefined
    : number | undefined;

/** The values a table's options parse to: numbers checked and converted, switches false when absent. */
export type OptionValues<T extends OptionTable> = { -readonly [K in keyof T]: ValueOf<T[K]> };

/**
 * `--port -1` as `--port=-1`: node:util's parseArgs reads a value starting with '-' as an
 * option and refuses the line in its own words; joined, the value reaches the option's check,
 * which says what range is allowed.
 */
function joinNegativeValues(table: OptionTable, argv: readonly string[]): string[] {
  const joined: string[] = [];
  for (let index = 0; index < argv.length; index += 1) {
    const argument = argv[index]!;
    const next = argv[index + 1];
    const spec = argument.startsWith('--') ? table[argument.slice(2)] : undefined;
    if (spec && spec.kind !== 'boolean' && next !== undefined && /^-\d/.test(next)) {
      joined.push(`${argument}=${next}`);
      index += 1;
    } else {
      joined.push(argument);
    }
  }
  return joined;
}

/** parseArgs' own error in words that say what to do, with "did you mean" for an unknown option. */
function usageErrorOf(error: Error, table: OptionTable): UsageError {
  const message = error.message.replace(/\. To specify a positional.*$/s, '').replace(/\.?$/, '.');
  const unknown = /^Unknown option '(--?[^'=]+)'/.exec(message)?.[1];
  if (unknown === undefined) return new UsageError(message);
  const near = nearest(
    unknown.replace(/^-+/, ''),
    Object.keys(table).filter((name) => name !== ''),
  );
  return new UsageError(near === undefined ? message : `${message} Did you mean '--${near}'?`);
}

/**
 * Parses a command line against a table: unknown options refused with "did you mean", every
 * integer, size and duration checked and converted, the positionals returned when allowed.
 */
export function parseOptions<T extends OptionTable>(
  table: T,
  argv: readonly string[],
  options: { allowPositionals?: boolean } = {},
): { values: OptionValues<T>; positionals: string[] } {
  const config = Object.fromEntries(
    Object.entries(table).map(([name, spec]) => [
      name,
      spec.kind === 'boolean'
        ? { type: 'boolean' as const, default: false }
        : { type: 'string' as const, ...(spec.kind === 'string' && spec.multiple ? { multiple: true } : {}) },
    ]),
  );
  let parsed: { values: Record<string, string | boolean | string[] | undefined>; positionals: string[] };
  try {
    parsed = parseArgs({
      args: joinNegativeValues(table, argv),
      strict: true,
      allowPositionals: options.allowPositionals ?? false,
      options: config,
    });
  } catch (error) {
    throw usageErrorOf(error as Error, table);
  }
  const values: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(table)) {
    const raw = parsed.values[name];
    const text = typeof raw === 'string' ? raw : undefined;
    switch (spec.kind) {
      case 'integer':
        values[name] = integerOption({ value: text, name, min: spec.min, max: spec.max });
        break;
      case 'size':
        values[name] = sizeOption({ value: text, name, min: spec.min, max: spec.max });
        break;
      case 'duration':
        values[name] = durationOption({
          value: text,
          name,
          minMs: spec.minMs,
          maxMs: spec.maxMs,
          ...(spec.bareUnit ? { bareUnit: spec.bareUnit } : {}),
        });
        break;
      default:
        values[name] = raw;
    }
  }
  return { values: values as OptionValues<T>, positionals: parsed.positionals };
}

/** The names of a table's repeatable options. */
export function listOptionNames(table: OptionTable): string[] {
  return Object.entries(table)
    .filter(([, spec]) => spec.kind === 'string' && spec.multiple)
    .map(([name]) => name);
}

const helpWidth = 100;
/** The widest flag column; a longer flag puts its text on the next line. */
const maxFlagWidth = 26;

function flagOf(name: string, spec: OptionSpec): string {
  return `--${name}${spec.value ? ` ${spec.value}` : ''}`;
}

/** Words of `text` in lines of at most `width` characters. */
function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line !== '' && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else {
      line = line === '' ? word : `${line} ${word}`;
    }
  }
  if (line !== '') lines.push(line);
  return lines;
}

/**
 * The option list of a command's --help: one section of the table (the first when none is
 * named), each option's text wrapped under it; the first section ends with -h, --help.
 */
export function optionsHelp(table: OptionTable, options: { section?: string } = {}): string {
  const all: [string, string][] = [...Object.entries(table).map(([name, spec]): [string, string] => [flagOf(name, spec), spec.help])];
  const rows = Object.entries(table)
    .filter(([, spec]) => spec.section === options.section)
    .map(([name, spec]): [string, string] => [flagOf(name, spec), spec.help]);
  if (options.section === undefined) rows.push(['-h, --help', 'show this help']);
  // One width for every section of the table, so the sections line up.
  const fitting = all.map(([flag]) => flag.length).filter((length) => length <= maxFlagWidth);
  const width = Math.max(10, ...fitting);
  const indent = ' '.repeat(2 + width + 2);
  const lines: string[] = [];
  for (const [flag, text] of rows) {
    const wrapped = wrap(text, helpWidth - indent.length);
    if (flag.length > width) lines.push(`  ${flag}`, ...wrapped.map((line) => `${indent}${line}`));
    else lines.push(`  ${flag.padEnd(width)}  ${wrapped[0] ?? ''}`, ...wrapped.slice(1).map((line) => `${indent}${line}`));
  }
  return lines.join('\n');
}

/** A table as a Markdown table for docs/cli.md: option, config key (when the command has a file), text. */
export function optionsMarkdown(table: OptionTable, options: { configKeys?: boolean } = {}): string {
  const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\s+/g, ' ');
  const header = options.configKeys
    ? ['| Option | Config file | What it does |', '| --- | --- | --- |']
    : ['| Option | What it does |', '| --- | --- |'];
  const rows = Object.entries(table).map(([name, spec]) => {
    const flag = `\`${flagOf(name, spec)}\``;
    if (!options.configKeys) return `| ${flag} | ${cell(spec.help)} |`;
    const key = spec.inConfig === false ? '—' : `\`${name}\``;
    return `| ${flag} | ${key} | ${cell(spec.help)} |`;
  });
  return [...header, ...rows].join('\n');
}

/** The zod schema of one option's value in a config file: the same bounds as on the command line. */
function configValueSchema(spec: OptionSpec): z.ZodType {
  const described = (schema: z.ZodType) => schema.describe(spec.help.replace(/\s+/g, ' '));
  switch (spec.kind) {
    case 'boolean':
      return described(z.boolean());
    case 'integer':
      return described(z.number().int().min(spec.min).max(spec.max));
    case 'size':
      // A string is checked as the command line checks it (units, any case); its bounds too, when read.
      return described(z.union([z.number().int().min(spec.min).max(spec.max), z.string().regex(sizePattern)]));
    case 'duration':
      return described(z.union([z.number().min(0), z.string().regex(/^\s*\d+(?:\.\d+)?\s*(ms|s|m)?\s*$/)]));
    default: {
      const text = spec.pattern ? z.string().regex(spec.pattern) : z.string().min(1);
      return described(spec.multiple ? z.array(text) : text);
    }
  }
}

/** The config file's schema of a command's options: every option but those marked not to be in it. */
export function configSchemaOf(table: OptionTable): z.ZodObject {
  const shape = Object.fromEntries(
    Object.entries(table)
      .filter(([, spec]) => spec.inConfig !== false)
      .map(([name, spec]) => [name, configValueSchema(spec).optional()]),
  );
  return z.object(shape).strict();
}
