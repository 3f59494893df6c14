/**
 * @module evolution/render/text
 * The default report: one screen a person reads in a terminal or a CI log, what the tests
 * exercise first.
 */
import type { DiffReport } from '../types.js';
import { headline, otherUses, sectionsOf, whomText } from './groups.js';

/** Control characters from a document would move a terminal's cursor; they are shown escaped. */
function plain(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
  return text.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

export function renderText(report: DiffReport): string {
  const lines = [
    `OLD ${report.old.title} ${report.old.version} (${report.old.source})`,
    `NEW ${report.new.title} ${report.new.version} (${report.new.source})`,
  ];
  if (report.coverage)
    lines.push(`coverage ${report.coverage.source}: ${report.coverage.covered} of ${report.coverage.total} behaviours seen`);
  lines.push('', headline(report));
  for (const section of sectionsOf(report)) {
    lines.push('', `${section.title} (${section.groups.reduce((sum, group) => sum + group.all.length, 0)}):`);
    for (const group of section.groups) {
      const change = group.first;
      lines.push(`  ${change.rule} [breaks ${whomText(change)}]`, `    ${change.message}`);
      lines.push(
        `    at ${change.location.document.toUpperCase()} ${change.location.pointer}${change.definedAt ? ` (defined at ${change.definedAt})` : ''}`,
      );
      if (change.impact && change.impact.level !== 'none')
        lines.push(
          `    ${change.impact.level}${change.impact.evidence.length > 0 ? `: seen ${change.impact.evidence.join(', ')}` : ': the tests never reached it'}`,
        );
      const others = otherUses(group);
      if (others.length > 0)
        lines.push(
          `    also at ${others.length} more use${others.length > 1 ? 's' : ''}: ${others.slice(0, 8).join(', ')}${others.length > 8 ? ', ...' : ''}`,
        );
    }
  }
  return `${plain(lines.join('\n'))}\n`;
}
