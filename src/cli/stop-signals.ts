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

/** Listens for SIGINT and SIGTERM until the process ends. */
export function onStopSignals(options: StopSignalOptions): void {
  let stopping = false;
  for (const signal of Object.keys(exitCodeOf) as StopSignal[]) {
    process.on(signal, () => {
      if (!stopping) {
        stopping = true;
        options.stop(signal);
        return;
      }
      options.beforeExit?.(signal);
      process.exit(exitCodeOf[signal]);
    });
  }
}
