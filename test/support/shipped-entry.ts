/**
 * @module test/support/shipped-entry
 * The file a package.json "exports" subpath names, for tests whose bundler cannot resolve the
 * package's own name (a page built in a temporary folder): they get the file users get.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../../src/openapi/package-root.js';

export function shippedEntry(subpath: string): string {
  const manifest = JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as {
    exports: Record<string, { default?: string } | string>;
  };
  const target = manifest.exports[subpath];
  const file = typeof target === 'string' ? target : target?.default;
  if (!file) throw new Error(`package.json exports no '${subpath}'`);
  return join(packageRoot(), file);
}
