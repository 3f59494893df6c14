/**
 * @module cli/profile-schema-ref
 * Where a written profile's `$schema` comment points: editors resolve a relative path
 * from the file's own folder, so a fixed `./node_modules/…` is right only for a file at the
 * project's top. A file inside the project gets the path from its folder to the installed
 * package's profile.schema.json; a file outside it (a path that would climb out of the
 * project, and break when the project moves) gets the installed schema's absolute file URL:
 * right on the machine that wrote it, and no address outside it is named.
 */
import { basename, dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { packageRoot } from '../openapi/package-root.js';

/** The project the package serves: the folder holding its node_modules, or its own checkout. */
function projectRoot(root: string): string {
  const parent = dirname(root);
  if (basename(parent) === 'node_modules') return dirname(parent);
  // A scoped install (node_modules/@scope/evidence-harness) is one folder deeper.
  if (basename(dirname(parent)) === 'node_modules' && basename(parent).startsWith('@')) return dirname(dirname(parent));
  return root;
}

/** The `$schema` of a profile written to `file`. */
export function profileSchemaReference(file: string, root: string = packageRoot()): string {
  const folder = dirname(resolve(file));
  const project = projectRoot(root);
  const inside = relative(project, folder);
  if (inside === '..' || inside.startsWith(`..${sep}`) || isAbsolute(inside))
    return pathToFileURL(resolve(root, 'profile.schema.json')).href;
  const path = relative(folder, resolve(root, 'profile.schema.json')).split(sep).join('/');
  return path.startsWith('.') ? path : `./${path}`;
}
