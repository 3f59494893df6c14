/**
 * FIFOs for the tests of files the mock refuses to read (docs/assumptions.md A-27). Each is made
 * with a second name (a hard link), so that a reader left waiting on it by a regression can be
 * let go after the test even when the test has removed or replaced the first name.
 */
import { execFileSync } from 'node:child_process';
import { closeSync, constants, linkSync, mkdtempSync, openSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach } from 'vitest';

/** Registers the cleanup and returns `makeFifo(path)` (`path` in the system's temporary folder). */
export function fifosReleasedAfterEach(): (path: string) => void {
  // The second names live apart, so a test removing its own folder first does not lose them.
  const holder = mkdtempSync(join(tmpdir(), 'eh-fifos-'));
  afterAll(() => rmSync(holder, { recursive: true, force: true }));
  const held: string[] = [];
  afterEach(() => {
    for (const path of held.splice(0)) {
      try {
        // Opening the write end lets a reader waiting in open() through; closing it gives that reader an end of file.
        closeSync(openSync(path, constants.O_WRONLY | constants.O_NONBLOCK));
      } catch {
        // ENXIO: nobody is reading it, as it should be.
      }
      rmSync(path, { force: true });
    }
  });
  return (path) => {
    execFileSync('mkfifo', ['-m', '600', path]);
    const second = join(holder, `fifo-${held.length}`);
    linkSync(path, second);
    held.push(second);
  };
}
