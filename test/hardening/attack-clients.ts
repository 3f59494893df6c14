/**
 * Clients for the attack tests: raw HTTP exchanges (to send what fetch would normalise away,
 * such as leading whitespace in a header value), attackers that repeat one request until told
 * to stop, and a well-behaved client that times its GET /health while they run.
 */
import { rawExchange } from '../support/raw-http.js';

export { rawExchange };

/** The status code of a raw HTTP answer, or 0 when nothing (or not HTTP) came back. */
export function statusOf(answer: string): number {
  return answer.startsWith('HTTP/1.1 ') ? Number(answer.slice(9, 12)) : 0;
}

/** The body of a raw HTTP answer (after the blank line). */
export function bodyOf(answer: string): string {
  const end = answer.indexOf('\r\n\r\n');
  return end < 0 ? '' : answer.slice(end + 4);
}

export interface Attack {
  /** Answers the attackers received, in order of arrival. */
  readonly answers: string[];
  /** Stops the attackers and waits for their last requests. */
  stop(): Promise<void>;
}

/** `clients` loops, each sending `request(round)` and awaiting its answer, until stopped. */
export function startAttack(options: { clients: number; request: (round: number) => Promise<string> }): Attack {
  let stopped = false;
  const answers: string[] = [];
  let round = 0;
  const loops = Array.from({ length: options.clients }, async () => {
    while (!stopped) {
      round += 1;
      answers.push(await options.request(round));
    }
  });
  return {
    answers,
    async stop() {
      stopped = true;
      await Promise.all(loops);
    },
  };
}

/**
 * What another client sees: `count` GET /health, one at a time, `gapMs` apart, each on a new
 * connection (so a slow accept shows too). Resolves with each one's status and milliseconds.
 */
export async function probeHealth(options: { url: string; count: number; gapMs: number }): Promise<{ statuses: number[]; ms: number[] }> {
  const statuses: number[] = [];
  const ms: number[] = [];
  for (let index = 0; index < options.count; index += 1) {
    const started = performance.now();
    const answer = await rawExchange(options.url, 'GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n');
    ms.push(performance.now() - started);
    statuses.push(statusOf(answer));
    await new Promise((resolve) => setTimeout(resolve, options.gapMs));
  }
  return { statuses, ms };
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}
