/**
 * Saves a file the way editors do (write a sibling, then rename over the original), so a
 * watcher sees a rename, not an in-place write.
 */
import { renameSync, writeFileSync } from 'node:fs';

export function saveByRename(path: string, text: string): void {
  writeFileSync(`${path}.saving`, text);
  renameSync(`${path}.saving`, path);
}
