/**
 * @module bench/figures
 * What a group gives: named figures (what bench/thresholds.json bounds) and tables (what
 * docs/performance.md shows between its `<!-- bench:ID -->` and `<!-- /bench -->` markers),
 * written as one JSON file per group. One Markdown table printer, the doc's updater and the
 * threshold check all read that JSON, never a group's internals.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface Table {
  readonly headers: readonly string[];
  readonly rows: readonly (readonly string[])[];
  /** A line printed under the table. */
  readonly note?: string;
}

export interface GroupResult {
  readonly group: string;
  /** By id; null: measured, but its runs had failed requests, so it stands for nothing. */
  readonly figures: Readonly<Record<string, number | null>>;
  readonly tables: Readonly<Record<string, Table>>;
}

export function markdownTable(table: Table): string {
  const cell = (text: string) => text.replaceAll('|', '\\|').replaceAll('\n', ' ');
  const line = (cells: readonly string[]) => `| ${cells.map(cell).join(' | ')} |`;
  const lines = [line(table.headers), line(table.headers.map(() => '---')), ...table.rows.map(line)];
  return table.note ? `${lines.join('\n')}\n\n${table.note}` : lines.join('\n');
}

/** A number as the tables print it: 3 significant digits, thousands separated. */
export function num(value: number | null | undefined, suffix = ''): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return '—';
  const digits = Math.abs(value) >= 100 ? 0 : Math.abs(value) >= 10 ? 1 : 2;
  return `${value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits })}${suffix}`;
}

export const times = (value: number | null | undefined) => num(value, '×');
export const percent = (value: number | null | undefined) =>
  value === null || value === undefined || !Number.isFinite(value) ? '—' : `${Math.round(value * 100)}%`;

export function writeResult(directory: string, result: GroupResult): void {
  writeFileSync(join(directory, `${result.group}.json`), `${JSON.stringify(result, null, 2)}\n`);
}

export function readResults(directory: string): GroupResult[] {
  if (!existsSync(directory)) return [];
  return readdirSync(directory)
    .filter((name) => name.endsWith('.json'))
    .sort()
    .map((name) => JSON.parse(readFileSync(join(directory, name), 'utf8')) as GroupResult);
}

/**
 * Replaces what stands between each `<!-- bench:ID -->` and the next `<!-- /bench -->` with
 * table ID; markers whose table this run did not make keep their old content. Returns the ids replaced.
 */
export function updateDoc(path: string, tables: ReadonlyMap<string, Table>): string[] {
  const replaced: string[] = [];
  const text = readFileSync(path, 'utf8').replace(
    /(<!-- bench:([\w.-]+) -->\n)[\s\S]*?(<!-- \/bench -->)/g,
    (whole, open: string, id: string, close: string) => {
      const table = tables.get(id);
      if (!table) return whole;
      replaced.push(id);
      return `${open}${markdownTable(table)}\n${close}`;
    },
  );
  writeFileSync(path, text);
  return replaced;
}

export interface Threshold {
  readonly figure: string;
  readonly comparison: '<=' | '>=';
  readonly bound: number;
  readonly description: string;
}

export interface Verdict {
  readonly threshold: Threshold;
  readonly value: number | null | undefined;
  /** undefined: not measured in these results. */
  readonly held: boolean | undefined;
}

export function judge(thresholds: readonly Threshold[], results: readonly GroupResult[]): Verdict[] {
  const figures = new Map<string, number | null>(results.flatMap((result) => Object.entries(result.figures)));
  return thresholds.map((threshold) => {
    const value = figures.get(threshold.figure);
    if (value === undefined) return { threshold, value, held: undefined };
    if (value === null) return { threshold, value, held: false };
    return { threshold, value, held: threshold.comparison === '<=' ? value <= threshold.bound : value >= threshold.bound };
  });
}

export function verdictTable(verdicts: readonly Verdict[]): Table {
  return {
    headers: ['Threshold', 'Figure', 'Measured', 'Bound', 'Held'],
    rows: verdicts.map(({ threshold, value, held }) => [
      threshold.description,
      `\`${threshold.figure}\``,
      value === null ? 'failed requests' : num(value),
      `${threshold.comparison === '<=' ? '≤' : '≥'} ${threshold.bound}`,
      held === undefined ? 'not measured' : held ? 'yes' : '**no**',
    ]),
  };
}
