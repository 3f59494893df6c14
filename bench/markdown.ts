/**
 * @module bench/markdown
 * Markdown tables and the number formats the performance doc uses.
 */

/** A GitHub-flavoured Markdown table; `|` inside a cell is escaped. */
export function table(headers: readonly string[], rows: readonly (readonly string[])[]): string {
  const cell = (text: string) => text.replaceAll('|', '\\|').replaceAll('\n', ' ');
  const line = (cells: readonly string[]) => `| ${cells.map(cell).join(' | ')} |`;
  return [line(headers), line(headers.map(() => '---')), ...rows.map(line)].join('\n');
}

export function integer(value: number): string {
  return Math.round(value).toLocaleString('en-US');
}

export function fixed(value: number, digits = 1): string {
  return value.toFixed(digits);
}

/** A ratio as "12.3×"; "n/a" when either side is missing or zero. */
export function ratio(numerator: number | undefined, denominator: number | undefined): string {
  if (numerator === undefined || denominator === undefined || denominator === 0) return 'n/a';
  return `${(numerator / denominator).toFixed(numerator / denominator >= 10 ? 1 : 2)}×`;
}

export function percent(numerator: number, denominator: number): string {
  return denominator === 0 ? 'n/a' : `${((numerator / denominator) * 100).toFixed(0)}%`;
}

export function code(text: string): string {
  return `\`${text}\``;
}
