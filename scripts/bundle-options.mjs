/**
 * What the package's bundles (scripts/bundle-cli.mjs, scripts/bundle-lib.mjs) leave external:
 * every bare specifier but zod. Relative ids (this package) are bundled; once resolved (an
 * absolute path, on Windows too), an id was already judged as it was written.
 */
import { isAbsolute } from 'node:path';

const bundled = /^zod(\/|$)/;

export function externalButZod(id, _importer, isResolved) {
  return !isResolved && !id.startsWith('.') && !isAbsolute(id) && !id.startsWith('\0') && !bundled.test(id);
}
