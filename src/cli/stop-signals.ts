/**
 * @module cli/stop-signals
 * SIGINT, SIGTERM and SIGHUP for a command that runs until stopped: the first signal asks it to
 * stop gracefully (reports written, exit 0); a second one exits at once, with 128 + the signal's
 * number (130 for SIGINT, 143 for SIGTERM, 129 for SIGHUP), the status a shell reports for a
 * process the signal killed. A person pressing Ctrl+C twice, or a supervisor sending SIGTERM
 * again, means "now". SIGHUP (the terminal closed, tmux or ssh gone, `kill -HUP`) is a stop like
 * SIGTERM: Node's default for it exits at once, without the coverage report or the pact. When the
 * process that started the command ends (npm's PID signalled, a parent that died), it stops as on
 * SIGTERM (cli/parent-watch.ts; docs/assumptions.md A-43).
 */

import { ignoreClosedOutput, type ParentEvent, watchParent } from './parent-watch.js';

const exitCodeOf = { SIGINT: 130, SIGTERM: 143, SIGHUP: 129 } as const;

export type StopSignal = keyof typeof exitCodeOf;

export interface StopSignalOptions {
  /** Called on the first signal, or when the parent ends or is interrupted (`cause` says which: parent-watch.ts). */
  readonly stop: (signal: StopSignal, cause: string) => void;
  /** Called just before a second signal exits the process (flush what must not be lost). */
  readonly beforeExit?: (signal: StopSignal) => void;
}

/**
 * Listens for SIGINT, SIGTERM and SIGHUP until the returned function is called (once the stop is
 * over), so a later command run in the same process starts with no listener of this one.
 */
export function onStopSignals(options: StopSignalOptions): () => void {
  let stopping = false;
  // The parent's end stops as SIGTERM would, an interrupted npm shell as SIGINT; neither counts
  // as the second signal that exits at once (Ctrl+C reaches this process and the shell together).
  const stopWatching = watchParent((event: ParentEvent) => {
    if (stopping) return;
    stopping = true;
    ignoreClosedOutput();
    if (event.kind === 'parent-ended') options.stop('SIGTERM', `the process that started it (PID ${event.parent}) ended`);
    else if (event.kind === 'launcher-ended')
      options.stop('SIGTERM', `the npm that started it (PID ${event.launcher}, above its shell, PID ${event.shell}) ended`);
    else options.stop('SIGINT', `SIGINT to the npm that started it (its shell, PID ${event.shell}, holds it)`);
  });
  const listeners = (Object.keys(exitCodeOf) as StopSignal[]).map((signal) => {
    const listener = () => {
      if (!stopping) {
        stopping = true;
        stopWatching();
        // A hang-up is most often the terminal going: writing to it may fail (EIO, EPIPE).
        if (signal === 'SIGHUP') ignoreClosedOutput();
        options.stop(signal, signal);
        return;
      }
      options.beforeExit?.(signal);
      process.exit(exitCodeOf[signal]);
    };
    process.on(signal, listener);
    return [signal, listener] as const;
  });
  return () => {
    stopWatching();
    for (const [signal, listener] of listeners) process.off(signal, listener);
  };
}

/**
 * Resolves with the first stop signal (or the parent's end, as SIGTERM; `cause` says which); a
 * second signal exits at once (after `beforeExit`). Call `stopListening` once the stop is over.
 */
export function untilStopSignal(
  options: { beforeExit?: () => void } = {},
): Promise<{ signal: StopSignal; cause: string; stopListening: () => void }> {
  return new Promise((resolve) => {
    const stopListening = onStopSignals({
      stop: (signal, cause) => resolve({ signal, cause, stopListening: () => stopListening() }),
      ...(options.beforeExit ? { beforeExit: options.beforeExit } : {}),
    });
  });
}
