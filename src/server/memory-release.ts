/**
 * @module server/memory-release
 * Gives memory back to the operating system once a reset has emptied the engine's stores.
 *
 * Why this exists: after a flood (100,000 jobs, a registry full of scenarios, thousands of
 * 15 KB headers) and a reset, the stores hold nothing, yet the process keeps its peak RSS. The
 * memory is V8's: the young generation grew to its 32 MiB ceiling under the allocation rate and
 * old-space pages stay committed, half empty. V8 shrinks them only when its memory reducer
 * decides the process is idle, which took 16-38 s on Node 20 and 22 and had not happened after
 * 80 s on Node 24 (docs/reliability.md, issue 10). A mock on every developer's laptop should not
 * keep 100 MB it no longer needs because an attack once passed by.
 *
 * So once the server has been quiet for a while after a reset, it asks V8 for a collection that
 * compacts the heap and shrinks the young generation. Node exposes no such call without
 * `--expose-gc`; the flag is set for the moment it takes to fetch `gc` from a fresh context and
 * then unset, so no other code sees a `gc` global. Quiet matters twice: a full collection
 * blocks the event loop for a few milliseconds, which a busy test suite should not pay after
 * each of its resets, and V8 (before 12) shrinks the young generation only when the allocation
 * rate of the last 5 s is low.
 */
import v8 from 'node:v8';
import vm from 'node:vm';

/** Collections to run one after another, each once the server has been quiet for a while. */
type CollectionPasses = ReadonlyArray<() => void>;

/** Undefined until first asked; null where the runtime refuses to expose a collector. */
let passes: CollectionPasses | null | undefined;

function collectionPasses(): CollectionPasses | null {
  if (passes !== undefined) return passes;
  try {
    const given = (globalThis as { gc?: unknown }).gc;
    let gc: (options?: object) => void;
    if (typeof given === 'function') {
      gc = given as (options?: object) => void;
    } else {
      v8.setFlagsFromString('--expose-gc');
      try {
        gc = vm.runInNewContext('gc') as (options?: object) => void;
      } finally {
        v8.setFlagsFromString('--no-expose-gc');
      }
    }
    // V8 12 (Node 22) and later take a "last resort" flavour: compact everything and shrink the
    // young generation in one call. Before that, an options object is read as `gc(true)`, a
    // young-generation-only collection. There, two full collections in a row compact old
    // space, and the young generation shrinks only at a collection whose allocation rate since
    // the one before is low: a third, after another quiet period (measured on Node 20).
    const v8Major = Number.parseInt(process.versions.v8, 10);
    passes =
      v8Major >= 12
        ? [() => gc({ type: 'major', execution: 'sync', flavor: 'last-resort' })]
        : [
            () => {
              gc();
              gc();
            },
            () => gc(),
          ];
  } catch {
    passes = null;
  }
  return passes;
}

export interface MemoryRelease {
  /** A reset emptied the stores: release memory once the server has been quiet for `quietMs`. */
  afterReset(): void;
  /** A request arrived: the quiet period starts again. */
  noteActivity(): void;
  /** Cancels a pending release (the server is closing). */
  close(): void;
}

export interface MemoryReleaseOptions {
  /** How long without requests before the release runs. Default 5 s (V8's allocation-rate window). */
  readonly quietMs?: number;
  /** Told after each release, with RSS before and after (for logs and tests). */
  readonly onRelease?: (figures: { rssBefore: number; rssAfter: number }) => void;
}

export function createMemoryRelease(options: MemoryReleaseOptions = {}): MemoryRelease {
  const quietMs = options.quietMs ?? 5_000;
  let lastActivity = performance.now();
  let timer: ReturnType<typeof setTimeout> | undefined;
  /** The pass to run next; passes.length when none is pending. */
  let nextPass = Number.POSITIVE_INFINITY;
  let rssBefore = 0;

  const schedule = (delayMs: number) => {
    if (timer !== undefined) clearTimeout(timer);
    timer = setTimeout(runPass, delayMs);
    // A pending release never keeps the process alive.
    timer.unref();
  };
  function runPass() {
    timer = undefined;
    const plan = collectionPasses();
    if (plan === null || nextPass >= plan.length) return;
    const quietFor = performance.now() - lastActivity;
    if (quietFor < quietMs) return schedule(quietMs - quietFor);
    if (nextPass === 0) rssBefore = process.memoryUsage.rss();
    plan[nextPass]?.();
    nextPass += 1;
    if (nextPass < plan.length) return schedule(quietMs);
    options.onRelease?.({ rssBefore, rssAfter: process.memoryUsage.rss() });
  }

  return {
    afterReset() {
      lastActivity = performance.now();
      nextPass = 0;
      schedule(quietMs);
    },
    noteActivity() {
      lastActivity = performance.now();
    },
    close() {
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
      nextPass = Number.POSITIVE_INFINITY;
    },
  };
}

/**
 * Runs a full collection now, at most once every `minIntervalMs` (default 100 ms); a no-op where
 * the runtime refuses to expose one. For a process that knows it just dropped a lot (the
 * conformance CLI after an answer of megabytes).
 */
export function collectGarbageThrottled(options: { minIntervalMs?: number } = {}): () => void {
  const minIntervalMs = options.minIntervalMs ?? 100;
  let last = Number.NEGATIVE_INFINITY;
  return () => {
    const now = performance.now();
    if (now - last < minIntervalMs) return;
    last = now;
    collectionPasses()?.[0]?.();
  };
}
