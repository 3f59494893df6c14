/**
 * @module evolution/render
 * The diff report's formats, by the name `--format` takes.
 */
import type { DiffReport, FailOn } from '../types.js';
import { renderJunit } from './junit.js';
import { renderMarkdown } from './markdown.js';
import { renderText } from './text.js';

export const diffFormats = ['text', 'json', 'markdown', 'junit'] as const;
export type DiffFormat = (typeof diffFormats)[number];

export function renderReport(report: DiffReport, options: { format: DiffFormat; failOn?: FailOn }): string {
  switch (options.format) {
    case 'json':
      return `${JSON.stringify(report, null, 2)}\n`;
    case 'markdown':
      return renderMarkdown(report);
    case 'junit':
      return renderJunit(report, options.failOn ? { failOn: options.failOn } : {});
    default:
      return renderText(report);
  }
}

export { renderJunit, renderMarkdown, renderText };
