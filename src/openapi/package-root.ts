/**
 * @module openapi/package-root
 * Finds files shipped with the package (spec/, scenarios/) from both the TypeScript sources
 * and the compiled dist/, which sit at different depths.
 */
// biome-ignore lint/style/noRestrictedImports: reads this package's own package.json to find its root, version and bin
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let cached: string | undefined;

/** The directory holding evidence-harness's package.json. */
export function packageRoot(): string {
  if (cached) return cached;
  let directory = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const manifest = join(directory, 'package.json');
    if (existsSync(manifest) && JSON.parse(readFileSync(manifest, 'utf8')).name === 'evidence-harness') {
      cached = directory;
      return directory;
    }
    const parent = dirname(directory);
    if (parent === directory) throw new Error('evidence-harness: cannot find its own package.json');
    directory = parent;
  }
}

/** The bundled OpenAPI document, spec/openapi.yaml. */
export function bundledSpecPath(): string {
  return join(packageRoot(), 'spec', 'openapi.yaml');
}

/**
 * The `evidence-harness` executable as installed: package.json's "bin", which is the bundle
 * scripts/bundle-cli.mjs writes (dist/cli/evidence-harness.js).
 */
export function executablePath(): string {
  const bin = JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')).bin as Record<string, string>;
  return join(packageRoot(), bin['evidence-harness']!);
}

/** The package's version, from package.json. */
export function packageVersion(): string {
  return JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')).version;
}
