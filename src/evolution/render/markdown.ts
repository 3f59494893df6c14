/**
 * @module evolution/render/markdown
 * The report as a pull-request comment: a headline, a table per section, compatible changes
 * folded away. Every text from the documents goes through the one markup escaper, then through
 * the few Markdown characters that would make a table cell or a link of it.
 */
import { escapeMarkup } from '../../contract/markup.js';
import type { DiffReport } from '../types.js';
import { headline, otherUses, sectionsOf, whomText } from './groups.js';

function cell(text: string): string {
  return escapeMarkup(text)
    .replace(/[\r\n]+/g, ' ')
    .replace(/([\\|[\]*_~!])/g, '\\$1');
}

export function renderMarkdown(report: DiffReport): string {
  const lines = [`### OpenAPI diff: ${cell(report.old.version)} → ${cell(report.new.version)}`, '', `**${cell(headline(report))}**`];
  if (report.coverage)
    lines.push(
      '',
      `Consumer coverage \`${cell(report.coverage.source)}\`: ${report.coverage.covered} of ${report.coverage.total} behaviours seen.`,
    );
  const withImpact = report.coverage !== undefined;
  for (const section of sectionsOf(report)) {
    const count = section.groups.reduce((sum, group) => sum + group.all.length, 0);
    const folded = section.title === 'Compatible';
    lines.push('', folded ? `<details><summary>${section.title} (${count})</summary>\n` : `#### ${section.title} (${count})\n`);
    lines.push(
      `| Rule | Breaks | Change | Where |${withImpact ? ' Seen |' : ''}`,
      `| --- | --- | --- | --- |${withImpact ? ' --- |' : ''}`,
    );
    for (const group of section.groups) {
      const change = group.first;
      const others = otherUses(group);
      const where = `${change.location.document.toUpperCase()} \`${cell(change.location.pointer)}\`${others.length > 0 ? ` and ${others.length} more` : ''}`;
      const seen = withImpact ? ` ${cell(change.impact?.evidence.join(', ') || '—')} |` : '';
      lines.push(`| \`${cell(change.rule)}\` | ${whomText(change)} | ${cell(change.message)} | ${where} |${seen}`);
    }
    if (folded) lines.push('', '</details>');
  }
  lines.push('', '<sub>evidence-harness diff; the rules are described in docs/evolution.md.</sub>');
  return `${lines.join('\n')}\n`;
}
