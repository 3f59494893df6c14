/**
 * @module cli/parent-watch
 * A command that runs until stopped (`mock`, `proxy`) stops by itself when whoever started it
 * goes away or is interrupted without it hearing (docs/assumptions.md A-43).
 *
 * Why: `npx evidence-harness mock` (and `npm run` of a script that runs it) is three processes:
 * npm, the `sh -c` npm starts, and this one. Makefiles, `concurrently`, CI scripts and container
 * runtimes signal npm's PID. npm passes the signal to the shell only; on SIGTERM the shell dies
 * and this process was left serving the port, never writing its coverage, pact or HAR; on SIGINT
 * a non-interactive shell waiting for its command holds the signal until the command ends, so
 * both stayed up. Nothing reaches this process in either case, so it watches:
 *
 * - its parent: when the parent PID changes, the parent has ended (the process is re-parented
 *   to init or a subreaper): stop as on SIGTERM. Whatever killed the parent, this is its end.
 * - on Linux, a parent that is a shell run by npm (`sh -c …`, npm's variables in the
 *   environment): the shell sleeps in wait() for its one child, this process, and wakes only for
 *   a signal it handles; SIGTERM and SIGHUP end it (the first watch sees that), so a wake-up is
 *   the SIGINT it is holding: stop as on SIGINT. Its context switches (/proc/PID/status) count
 *   the wake-ups. A stop or continue of this process does not wake it: a shell without job
 *   control neither waits for stopped children nor handles SIGCHLD.
 * - on Linux, npm itself, the shell's parent: SIGKILL to npm, or SIGHUP (which npm does not pass
 *   on), ends npm and leaves the shell waiting for this process, so the first watch sees nothing.
 *   When npm ends, the kernel re-parents the shell at once (before npm is even reaped): the
 *   shell's parent PID (/proc/SHELL/stat), read at start, changes. Stop as on SIGTERM. Watching
 *   the shell's parent PID rather than npm's own PID needs no identity check: no other process
 *   can take npm's place as the shell's parent.
 */
// biome-ignore lint/style/noRestrictedImports: reads /proc/PID/stat of the parent process, a kernel file and not a document
import { readFileSync } from 'node:fs';

export type ParentEvent =
  | { readonly kind: 'parent-ended'; readonly parent: number }
  | { readonly kind: 'shell-interrupted'; readonly shell: number }
  | { readonly kind: 'launcher-ended'; readonly launcher: number; readonly shell: number };

/** How often the parent is looked at: a stop within 2 s of the parent's end, at a few reads a second. */
const pollMs = 250;

/** What the watch reads of the system, injectable for tests. */
export interface ParentFacts {
  ppid(): number;
  /** The file's text, undefined when it cannot be read (not Linux, process gone). */
  read(path: string): string | undefined;
  readonly env: Readonly<Record<string, string | undefined>>;
}

const systemFacts: ParentFacts = {
  ppid: () => process.ppid,
  read: (path) => {
    try {
      return readFileSync(path, 'utf8');
    } catch {
      return undefined;
    }
  },
  env: process.env,
};

/** Whether `pid` is a shell npm started to run one command (`sh -c`, `bash -c`, …) for this process. */
export function isNpmShell(pid: number, facts: ParentFacts): boolean {
  if (facts.env.npm_lifecycle_event === undefined && facts.env.npm_command === undefined) return false;
  const argv = facts.read(`/proc/${pid}/cmdline`)?.split('\0') ?? [];
  const program = (argv[0] ?? '').split('/').pop() ?? '';
  return /^(sh|dash|bash|ash|zsh)$/.test(program) && argv[1] === '-c';
}

/** The shell's context switches so far: they change only when it wakes. Undefined when unreadable. */
export function wakeUps(pid: number, facts: ParentFacts): number | undefined {
  const status = facts.read(`/proc/${pid}/status`);
  if (status === undefined) return undefined;
  const voluntary = /voluntary_ctxt_switches:\s+(\d+)/.exec(status)?.[1];
  const forced = /nonvoluntary_ctxt_switches:\s+(\d+)/.exec(status)?.[1];
  if (voluntary === undefined || forced === undefined) return undefined;
  return Number(voluntary) + Number(forced);
}

/**
 * A process's parent PID from /proc/PID/stat (`pid (comm) state ppid …`; the command name may
 * hold spaces and parentheses, so the fields are read after its last `)`). Undefined when unreadable.
 */
export function parentOf(pid: number, facts: ParentFacts): number | undefined {
  const stat = facts.read(`/proc/${pid}/stat`);
  if (stat === undefined) return undefined;
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ppid = Number(fields[1]);
  return Number.isInteger(ppid) && ppid > 0 ? ppid : undefined;
}

/**
 * Calls `onEvent` once, when the parent ends, or (a shell run by npm) when it is interrupted or
 * npm above it ends; returns the
 * function that stops watching. The timer never keeps the process alive.
 */
export function watchParent(onEvent: (event: ParentEvent) => void, facts: ParentFacts = systemFacts): () => void {
  const parent = facts.ppid();
  // PID 1 as parent: started by init or a container runtime, which signals this process itself.
  if (parent <= 1) return () => undefined;
  const shell = isNpmShell(parent, facts) ? parent : undefined;
  let shellWakeUps = shell === undefined ? undefined : wakeUps(shell, facts);
  // npm, above the shell; none when it is init already (a shell whose npm is gone before this started).
  const shellParent = shell === undefined ? undefined : parentOf(shell, facts);
  const launcher = shellParent !== undefined && shellParent > 1 ? shellParent : undefined;
  const timer = setInterval(() => {
    if (facts.ppid() !== parent) {
      stop();
      onEvent({ kind: 'parent-ended', parent });
      return;
    }
    if (shell === undefined) return;
    // Unreadable: the shell is going; the parent check above sees it on the next look.
    const shellParentNow = launcher === undefined ? undefined : parentOf(shell, facts);
    if (launcher !== undefined && shellParentNow !== undefined && shellParentNow !== launcher) {
      stop();
      onEvent({ kind: 'launcher-ended', launcher, shell });
      return;
    }
    if (shellWakeUps === undefined) return;
    const now = wakeUps(shell, facts);
    if (now === undefined || now === shellWakeUps) return;
    shellWakeUps = now;
    stop();
    onEvent({ kind: 'shell-interrupted', shell });
  }, pollMs);
  timer.unref();
  const stop = () => clearInterval(timer);
  return stop;
}

/**
 * Once the parent is gone, the terminal or pipe it held may be gone too: a write to it must not
 * crash the stop (EPIPE) before the reports are written.
 */
export function ignoreClosedOutput(): void {
  for (const stream of [process.stdout, process.stderr]) stream.on('error', () => undefined);
}
