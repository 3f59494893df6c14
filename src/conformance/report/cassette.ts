/**
 * @module conformance/report/cassette
 * `--record FILE.har`: every exchange a run sent (those judged, and those it only learnt from,
 * such as a generated input's shrinking steps), kept as HAR 1.2 entries through the shared
 * writer (har.ts). The caller's credential headers are replaced by name, whatever they are
 * called, and the run's scrubber takes every credential value out of the rest; bodies share one
 * budget, so a server sending its largest answers cannot make the cassette hold gigabytes.
 */
import type { Exchange } from '../exchange.js';
import { buildHar, type CassetteEntry } from './har.js';

/** The body bytes a cassette keeps in all; beyond them, bodies are left out, saying so. */
export const cassetteBodyBudget = 32 * 1024 * 1024;

export class CassetteRecorder {
  private readonly entries: (CassetteEntry & { readonly id: number })[] = [];
  private bodyBytes = 0;
  private readonly secretHeaders: Set<string>;

  constructor(
    private readonly options: {
      /** Header names whose values are credentials (--header, --second-caller-header): never written. */
      readonly secretHeaders: readonly string[];
      /** Takes every credential value out of a text (the run's scrubber). */
      readonly scrub: (text: string) => string;
      readonly bodyBudget?: number;
    },
  ) {
    this.secretHeaders = new Set(options.secretHeaders.map((name) => name.toLowerCase()));
  }

  get size(): number {
    return this.entries.length;
  }

  /** Keeps one exchange as sent and answered. */
  add(exchange: Exchange, sent: { startedAt: number }): void {
    const budget = this.options.bodyBudget ?? cassetteBodyBudget;
    const comments: string[] = [`exchange ${exchange.id}`, ...exchange.notes];
    if (exchange.transportError) comments.push(exchange.transportError);
    if (exchange.response?.incomplete) comments.push(exchange.response.incomplete.message);
    const keep = (body: string | undefined, what: string): string | undefined => {
      if (body === undefined) return undefined;
      const bytes = Buffer.byteLength(body);
      if (this.bodyBytes + bytes > budget) {
        comments.push(`${what} body of ${bytes} bytes left out: the cassette's ${budget} bytes of bodies are used up`);
        return '';
      }
      this.bodyBytes += bytes;
      return this.options.scrub(body);
    };
    const headers = Object.fromEntries(
      Object.entries(exchange.request.headers).map(([name, value]) => [
        name,
        this.secretHeaders.has(name.toLowerCase()) ? '[scrubbed]' : this.options.scrub(value),
      ]),
    );
    const requestBody = keep(exchange.request.body, 'request');
    const response = exchange.response;
    this.entries.push({
      id: exchange.id,
      startedAt: sent.startedAt,
      durationMs: exchange.durationMs,
      request: {
        method: exchange.request.method,
        url: this.options.scrub(exchange.request.url),
        headers,
        ...(requestBody === undefined ? {} : { body: requestBody }),
      },
      ...(response
        ? {
            response: {
              status: response.status,
              headers: Object.fromEntries(Object.entries(response.headers).map(([name, value]) => [name, this.options.scrub(value)])),
              body: keep(response.bodyText, 'response') ?? '',
            },
          }
        : {}),
      comment: this.options.scrub(comments.join('; ')),
    });
  }

  /** The cassette as HAR 1.2 JSON text. */
  toHar(creator: { name: string; version: string }): string {
    // In the order sent: a burst's answers are kept as they arrive, which is not always that order.
    const entries = [...this.entries].sort((a, b) => a.id - b.id).map(({ id: _id, ...entry }) => entry);
    return `${JSON.stringify(buildHar({ creator, entries }), null, 2)}\n`;
  }
}
