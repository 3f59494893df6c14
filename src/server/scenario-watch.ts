/**
 * @module server/scenario-watch
 * `mock --watch`: reloads the scenario file when it changes, so editing a scenario takes effect
 * without a restart (and without losing the jobs already made). A file that no longer parses or
 * validates is reported and the scenario in force stays as it was: a half-saved file must not
 * take the mock down or leave it without a scenario. So is a file that is no longer a regular
 * file at the place the path led to at start (a FIFO, a folder, a symbolic link swapped in):
 * it is not even opened for reading (docs/assumptions.md A-27).
 */
import { type FSWatcher, realpathSync, watch } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { readRegularFile, UserFileError } from '../documents/regular-file.js';
import type { MockEngine } from '../engine/index.js';
import { ScenarioError } from '../engine/index.js';
import { scenarioFromText } from './scenario-file.js';

export interface ScenarioWatchOptions {
  /** The scenario file, as given on the command line (messages name it so). */
  readonly file: string;
  readonly engine: MockEngine;
  /**
   * Where `file` led when the mock read it at start (readScenarioFile's `resolvedPath`): every
   * reload must lead there too. Default: where it leads when the watch starts.
   */
  readonly resolvedPath?: string;
  /** The text the mock started with, so that an event that changes nothing reloads nothing. */
  readonly startText?: string;
  /** A reload happened: which scenario, and whether it was put in force. */
  readonly onReload: (result: { scenario: string; inForce: boolean }) => void;
  /** A change could not be used; the message says why (the file's own errors, with a short code frame). */
  readonly onError: (message: string) => void;
  /** Quiet time after the last change event before the file is read. Default 100 ms. */
  readonly settleMs?: number;
}

export interface ScenarioWatch {
  close(): void;
}

function resolvedNow(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

export function watchScenarioFile(options: ScenarioWatchOptions): ScenarioWatch {
  const settleMs = options.settleMs ?? 100;
  const given = resolve(options.file);
  const resolvedPath = options.resolvedPath ?? resolvedNow(given);
  let timer: ReturnType<typeof setTimeout> | undefined;
  let closed = false;
  /** The text last loaded: editors often write a file twice, or touch it without changing it. */
  let lastText = options.startText;
  /** One reload at a time; a change during a reload is read once it ends. */
  let reloading: Promise<void> = Promise.resolve();

  const reload = async () => {
    if (closed) return;
    let text: string;
    try {
      // Never blocks: a FIFO or a device is refused before a byte is read (src/documents/regular-file.ts).
      ({ text } = await readRegularFile({ path: options.file, resolvedPath }));
    } catch (error) {
      // Gone for a moment (an editor's save by rename); the rename's own event brings it back.
      if (closed || (error instanceof UserFileError && error.problem === 'missing')) return;
      const reason = error instanceof UserFileError ? error.message : String((error as Error)?.message ?? error);
      options.onError(`${reason}: refused, and the last version that loaded stays in force.`);
      return;
    }
    if (text === lastText || closed) return;
    try {
      const scenario = await scenarioFromText({ text, path: options.file });
      if (closed) return;
      const result = options.engine.control.reloadStartingScenario(scenario, { source: options.file });
      lastText = text;
      options.onReload({ scenario: result.scenario.name, inForce: result.inForce });
    } catch (error) {
      lastText = text;
      const reason = error instanceof ScenarioError ? error.message : String((error as Error)?.message ?? error);
      options.onError(`${reason}\nThe scenario in force is unchanged; save the file again once it is fixed.`);
    }
  };

  const schedule = () => {
    if (timer !== undefined) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = undefined;
      reloading = reloading.then(reload);
    }, settleMs);
  };

  // The folders are watched, not the file: editors that save by writing a new file and renaming
  // it over the old one would end a watch on the file itself after the first save. The file the
  // path led to at start is watched in its own folder (a link's target is saved there), and the
  // path as given in its folder too, so that a link swapped in there is seen and refused.
  const places = new Map<string, Set<string>>();
  for (const path of new Set([resolvedPath, given])) {
    const names = places.get(dirname(path)) ?? new Set<string>();
    names.add(basename(path));
    places.set(dirname(path), names);
  }
  if (lastText === undefined) {
    void readRegularFile({ path: options.file, resolvedPath }).then(
      ({ text }) => {
        lastText ??= text;
      },
      () => undefined,
    );
  }
  const watchers: FSWatcher[] = [];
  for (const [folder, names] of places) {
    const watcher = watch(folder, { persistent: false }, (_event, changed) => {
      if (changed === null || names.has(String(changed))) schedule();
    });
    watcher.on('error', (error) => options.onError(`cannot watch ${options.file} any more: ${error.message}`));
    watchers.push(watcher);
  }
  return {
    close() {
      closed = true;
      if (timer !== undefined) clearTimeout(timer);
      for (const watcher of watchers) watcher.close();
    },
  };
}
