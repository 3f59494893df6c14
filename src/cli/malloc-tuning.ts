/**
 * @module cli/malloc-tuning
 * The commands that buffer other programs' large bodies (`mock`, `proxy`, `conformance`) restart
 * themselves once, at launch, with glibc's mmap threshold fixed at 32 KiB, so that memory freed
 * after a flood goes back to the system.
 *
 * Why: glibc serves blocks under its mmap threshold (128 KiB, raised further after large frees)
 * from its heap, and gives heap pages back only from the top. A flood of mid-sized request bodies
 * (32–128 KiB, a scenario near its size limit) leaves that heap fragmented: on Node 24 the mock
 * stayed 10–17 MB above its start after reset, 1.15–1.27× where issue 10 asks for 1.2×, although
 * V8 had returned its whole heap and a `malloc_trim(0)` from a debugger brought it back below its
 * start. Node cannot call `malloc_trim`, and glibc reads the threshold only when a process starts,
 * so the setting has to be in the environment before node runs: `process.execve` (Node 22.15,
 * 23.11 and later) replaces the process with itself, same PID and stdio, before anything is
 * served. With the threshold fixed, such bodies are mapped and unmapped whole: RSS after reset is
 * back within 1.08–1.11× on Node 24, and throughput showed no difference (docs/reliability.md,
 * "Memory after reset"; the restart costs about 35 ms of start-up, docs/performance.md).
 * `conformance` is one-shot, but a server under test that answers every request with megabytes
 * fragments the same heap within seconds (figures: docs/reliability.md).
 *
 * Not done where it cannot matter or is not ours to decide: off Linux, on another C library
 * (musl ignores the variable), on Node without `process.execve` (Node 20 gives its memory back
 * without it), when the user has set the threshold already (their value wins; this is also what
 * stops a second restart), or with `EVIDENCE_HARNESS_MALLOC_TUNING=off`.
 */

/** The environment variable that turns the restart off (`off`, `0` or `false`). */
export const mallocTuningSwitch = 'EVIDENCE_HARNESS_MALLOC_TUNING';

/** glibc's own name for the setting (mallopt(3), M_MMAP_THRESHOLD); setting it also stops the dynamic raise. */
export const mmapThresholdVariable = 'MALLOC_MMAP_THRESHOLD_';

/** 32 KiB: request bodies and buffers from here up are mapped on their own and returned on free. */
export const mmapThresholdBytes = 32 * 1024;

/** The commands that buffer large bodies others send; the rest exit before it matters. */
const floodedCommands: ReadonlySet<string> = new Set(['mock', 'proxy', 'conformance']);

/** What the decision reads of the process, so that it can be tested without restarting one. */
export interface ProcessFacts {
  readonly platform: string;
  /** The command line after `node script`: the subcommand first. */
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Whether this node can replace its process (`process.execve`). */
  readonly canExecve: boolean;
  /** glibc's version at run time, undefined on another C library. Read only when the rest allows a restart. */
  glibcVersion(): string | undefined;
}

export type MallocTuningPlan =
  | { readonly restart: true; readonly env: Record<string, string> }
  | { readonly restart: false; readonly reason: string };

/** Whether to restart, and with which environment. */
export function planMallocTuning(facts: ProcessFacts): MallocTuningPlan {
  const [command] = facts.args;
  if (command === undefined || !floodedCommands.has(command)) return { restart: false, reason: 'not a command that buffers large bodies' };
  if (facts.args.includes('--help') || facts.args.includes('-h')) return { restart: false, reason: 'help only' };
  const choice = facts.env[mallocTuningSwitch]?.trim().toLowerCase();
  if (choice === 'off' || choice === '0' || choice === 'false') return { restart: false, reason: `${mallocTuningSwitch}=${choice}` };
  if (facts.env[mmapThresholdVariable] !== undefined || facts.env.GLIBC_TUNABLES?.includes('glibc.malloc.mmap_threshold')) {
    return { restart: false, reason: 'the mmap threshold is already set' };
  }
  if (facts.platform !== 'linux') return { restart: false, reason: `not Linux (${facts.platform})` };
  if (!facts.canExecve) return { restart: false, reason: 'this node has no process.execve' };
  if (facts.glibcVersion() === undefined) return { restart: false, reason: 'not glibc' };
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(facts.env)) if (value !== undefined) env[name] = value;
  env[mmapThresholdVariable] = String(mmapThresholdBytes);
  return { restart: true, env };
}

type Execve = (file: string, args: readonly string[], env: Record<string, string>) => never;

/**
 * Restarts this process with the malloc setting when the plan says so; returns when it does not,
 * or when the restart fails (the command then runs as it is: the setting is a refinement).
 */
export function restartWithMallocTuning(): void {
  const execve = (process as unknown as { execve?: Execve }).execve;
  const plan = planMallocTuning({
    platform: process.platform,
    args: process.argv.slice(2),
    env: process.env,
    canExecve: typeof execve === 'function',
    glibcVersion: () => {
      // The report's header carries the C library; leaving out the network part keeps it to a few
      // milliseconds. The setting is put back: a report the user asks for later is theirs.
      const report = process.report as { excludeNetwork?: boolean };
      const excluded = report.excludeNetwork;
      report.excludeNetwork = true;
      try {
        return (process.report.getReport() as { header?: { glibcVersionRuntime?: string } }).header?.glibcVersionRuntime;
      } finally {
        report.excludeNetwork = excluded;
      }
    },
  });
  if (!plan.restart || execve === undefined) return;
  try {
    // Node's own flags (--inspect, --cpu-prof, …) and the script come along; NODE_OPTIONS is in the environment.
    execve.call(process, process.execPath, [process.execPath, ...process.execArgv, ...process.argv.slice(1)], plan.env);
  } catch {
    // E.g. EACCES on the node binary in a locked-down container: serve without the setting.
  }
}
