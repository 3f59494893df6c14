/**
 * @module server/scenario-watch
 * `mock --watch`: reloads the scenario file when it changes, so editing a scenario takes effect
 * without a restart (and without losing the jobs already made). A file that no longer parses or
 * validates is reported and the scenario in force stays as it was: a half-saved file must not
 * take the mock down or leave it without a scenario.
 */
import { type FSWatcher, watch } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { basename, dirname, resolve } from 'node:path';
import type { MockEngine } from '../engine/index.js';
import { ScenarioError } from '../engine/index.js';
import { loadScenarioFile } from './scenario-file.js';

export interface ScenarioWatchOptions {
  /** The scenario file, as given on the command line (messages name it so). */
  readonly file: string;
  readonly engine: MockEngine;
  /** A reload happened: which scenario, and whether it was put in force. */
  readonly onReload: (result: { scenario: string; inForce: boolean }) => void;
  /** A change could not be used; the message says why (the file's own errors, with their code frame). */
  readonly onError: (message: string) => void;
  /** Quiet time after the last change event before the file is read. Default 100 ms. */
  readonly settleMs?: number;
}

export interface ScenarioWatch {
  close(): void;
}

export function watchScenarioFile(options: ScenarioWatchOptions): ScenarioWatch {
  const settleMs = options.settleMs ?? 100;
  const path = resolve(options.file);
  const name = basename(path);
  let timer: ReturnType<typeof setTimeout> | undefined;
  let closed = false;
  /** The text last loaded: editors often write a file twice, or touch it without changing it. */
  let lastText: string | undefined;
  /** One reload at a time; a change during a reload is read once it ends. */
  let reloading: Promise<void> = Promise.resolve();

  const reload = async () => {
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch {
      // Gone for a moment (an editor's save by rename); the rename's own event brings it back.
      return;
    }
    if (text === lastText || closed) return;
    try {
      const scenario = await loadScenarioFile(options.file);
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

  const onEvent = (_event: string, changed: string | Buffer | null) => {
    // The folder is watched, not the file: editors that save by writing a new file and renaming
    // it over the old one would end a watch on the file itself after the first save.
    if (changed !== null && String(changed) !== name) return;
    if (timer !== undefined) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = undefined;
      reloading = reloading.then(reload);
    }, settleMs);
  };

  // The text the mock started with, so that an event that changes nothing reloads nothing.
  void readFile(path, 'utf8').then(
    (text) => {
      lastText ??= text;
    },
    () => undefined,
  );
  const watcher: FSWatcher = watch(dirname(path), { persistent: false }, onEvent);
  watcher.on('error', (error) => options.onError(`cannot watch ${options.file} any more: ${error.message}`));
  return {
    close() {
      closed = true;
      if (timer !== undefined) clearTimeout(timer);
      watcher.close();
    },
  };
}
