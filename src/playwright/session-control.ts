/**
 * @module playwright/session-control
 * One session of a running mock, driven over HTTP (spec/control-api.yaml): every call carries
 * `X-Mock-Session`, so it acts on that session alone (docs/assumptions.md A-60). Imports nothing
 * from Node, so it runs wherever fetch does: a Playwright worker, a test runner, a browser.
 */
// A type only, erased when built: nothing of the engine is loaded.
import type { JournalEntry } from '../engine/index.js';

/** Which calls `calls()` returns (GET /__mock/journal's filters, A-61). */
export interface CallFilter {
  readonly operation?: string;
  readonly status?: number;
  readonly idempotencyKey?: string;
  readonly jobId?: string;
  /** Entries recorded at or after this engine-clock time (ms). */
  readonly since?: number;
  /** At most this many (default 100, at most 1000). */
  readonly limit?: number;
}

/** A journal entry as the control API gives it (spec/control-api.yaml, JournalEntry): the engine's own type. */
export type RecordedCall = JournalEntry;

/** Thrown when the control API refuses a call: `status` and the Error body's `code` say why. */
export class MockControlError extends Error {
  override readonly name = 'MockControlError';
  constructor(
    message: string,
    readonly status: number,
    readonly code: string | undefined,
  ) {
    super(message);
  }
}

export interface SessionControlOptions {
  /** The mock's address, such as 'http://127.0.0.1:4010'. */
  readonly mockUrl: string;
  /** The session: 1 to 64 letters, digits, '.', '_', '-' or '~'. */
  readonly session: string;
  /** The control token (`X-Mock-Token`), when the mock listens beyond loopback. */
  readonly controlToken?: string;
  /** Default: the global fetch. */
  readonly fetch?: typeof fetch;
}

/** A session's control surface over HTTP: scenario, reset, calls, jobs. */
export class SessionControl {
  readonly session: string;
  private readonly base: string;

  constructor(private readonly options: SessionControlOptions) {
    this.session = options.session;
    this.base = `${new URL(options.mockUrl).origin}/__mock`;
  }

  /** The headers that put a request in this session. */
  get headers(): Record<string, string> {
    return { 'x-mock-session': this.session };
  }

  /** Puts a scenario in force in this session: a shipped or registered name, or a scenario object. */
  async useScenario(scenario: string | Record<string, unknown>): Promise<string> {
    const body = typeof scenario === 'string' ? { name: scenario } : { scenario };
    return ((await this.call('PUT', '/scenario', body)) as { current: string }).current;
  }

  /** The name of the scenario in force in this session. */
  async scenario(): Promise<string> {
    return ((await this.call('GET', '/scenarios')) as { current: string }).current;
  }

  /** Forgets this session's jobs, keys and journal and restores its starting scenario. */
  async reset(): Promise<void> {
    await this.call('POST', '/reset');
  }

  /** The calls this session answered that match `filter`, newest first. */
  async calls(filter: CallFilter = {}): Promise<readonly RecordedCall[]> {
    const query = new URLSearchParams({ order: 'newest' });
    for (const [name, value] of Object.entries(filter)) if (value !== undefined) query.set(name, String(value));
    return ((await this.call('GET', `/journal?${query}`)) as { entries: RecordedCall[] }).entries;
  }

  /** Moves a job of this session to its next timeline step now. */
  async advanceJob(jobId: string): Promise<unknown> {
    return this.call('POST', `/jobs/${encodeURIComponent(jobId)}/advance`);
  }

  /** The session's coverage document (docs/coverage.md). */
  async coverage(): Promise<unknown> {
    return this.call('GET', '/coverage');
  }

  private async call(method: string, path: string, body?: unknown): Promise<unknown> {
    const send = this.options.fetch ?? globalThis.fetch;
    const response = await send(`${this.base}${path}`, {
      method,
      headers: {
        ...this.headers,
        ...(this.options.controlToken ? { 'x-mock-token': this.options.controlToken } : {}),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    if (!response.ok) {
      const problem = parsed as { code?: string; message?: string } | undefined;
      throw new MockControlError(
        `${method} /__mock${path} in session '${this.session}' answered ${response.status}: ${problem?.message ?? text.slice(0, 200)}`,
        response.status,
        problem?.code,
      );
    }
    return parsed;
  }
}
