/**
 * @module cli/stop-signals
 * SIGINT and SIGTERM for a command that runs until stopped: the first signal asks it to stop
 * gracefully; a second one exits at once, with 128 + the signal's number (130 for SIGINT, 143
 * for SIGTERM), the status a shell reports for a process the signal killed. A person pressing
 * Ctrl+C twice, or a supervisor sending SIGTERM again, means "now".
 */

const exitCodeOf = { SIGINT: 130, SIGTERM: 143 } as const;

export type StopSignal = keyof typeof exitCodeOf;

export interface StopSignalOptions {
  /** Called on the first signal. */
  readonly stop: (signal: StopSignal) => void;
  /** Called just before a second signal exits the process (flush what must not be lost). */
  readonly beforeExit?: (signal: StopSignal) => void;
}

/**
 * Listens for SIGINT and SIGTERM until the returned function is called (once the stop is
 * over), so a later command run in the same process starts with no listener of this one.
 */
export function onStopSignals(options: StopSignalOptions): () => void {
  let stopping = false;
  const listeners = (Object.keys(exitCodeOf) as StopSignal[]).map((signal) => {
    const listener = () => {
      if (!stopping) {
        stopping = true;
        options.stop(signal);
        return;
      }
      options.beforeExit?.(signal);
      process.exit(exitCodeOf[signal]);
    };
    process.on(signal, listener);
    return [signal, listener] as const;
  });
  return () => {
    for (const [signal, listener] of listeners) process.off(signal, listener);
  };
}

/**
 * Resolves with the first stop signal; a second one exits at once (after `beforeExit`). Call
 * `stopListening` once the stop is over.
 */
export function untilStopSignal(options: { beforeExit?: () => void } = {}): Promise<{ signal: StopSignal; stopListening: () => void }> {
  return new Promise((resolve) => {
    const stopListening = onStopSignals({
      stop: (signal) => resolve({ signal, stopListening: () => stopListening() }),
      ...(options.beforeExit ? { beforeExit: options.beforeExit } : {}),
    });
  });
}
