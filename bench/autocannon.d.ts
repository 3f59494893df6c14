/**
 * The slice of autocannon's programmatic API the benchmarks use. autocannon ships no types and
 * @types/autocannon is not installed, so this declares only what bench/load.ts calls.
 */
declare module 'autocannon' {
  export interface AutocannonRequest {
    method?: string;
    path?: string;
    headers?: Record<string, string>;
    body?: string;
    /** Called before each request is sent; returns the request to send. */
    setupRequest?: (request: AutocannonRequest, context: Record<string, unknown>) => AutocannonRequest;
    /** Called with each answer; `context` is the connection's, kept across its requests. */
    onResponse?: (status: number, body: string, context: Record<string, unknown>) => void;
  }
  export interface AutocannonOptions {
    url: string;
    connections?: number;
    duration?: number;
    amount?: number;
    pipelining?: number;
    timeout?: number;
    method?: string;
    headers?: Record<string, string>;
    body?: string;
    requests?: AutocannonRequest[];
  }
  export interface Histogram {
    average: number;
    mean: number;
    stddev: number;
    min: number;
    max: number;
    p50: number;
    p90: number;
    p99: number;
    total: number;
  }
  export interface AutocannonResult {
    requests: Histogram;
    latency: Histogram;
    throughput: Histogram;
    errors: number;
    timeouts: number;
    non2xx: number;
    /** Answers counted by status code. */
    statusCodeStats?: Record<string, { count: number }>;
    duration: number;
    '2xx': number;
  }
  function autocannon(options: AutocannonOptions): Promise<AutocannonResult>;
  export default autocannon;
}
