/**
 * A JSON file the tests publish from a schema (UPDATE_*_SCHEMA=1): written, then laid out by
 * Biome, so the file a rewrite leaves is the one `biome check` accepts (Biome folds short
 * arrays that JSON.stringify spreads over lines; a plain rewrite failed the lint step of CI).
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

export function writeGeneratedJson(path: string, value: unknown): void {
  writeFileSync(path, `${JSON.stringify(value, null, 2)}\n`);
  execFileSync(process.execPath, [join(process.cwd(), 'node_modules/@biomejs/biome/bin/biome'), 'format', '--write', path], {
    stdio: 'ignore',
  });
}
