/**
 * @module app/config
 * Where the app sends its requests, read from the page's query string first and build-time
 * variables second, so one build runs against MSW in the page and against a real server.
 */

export interface AppConfig {
  /** The API base URL the typed client uses. */
  readonly apiBaseUrl: string;
  /** 'msw': a service worker answers from the mock engine inside the page; 'off': requests go to the network. */
  readonly mock: 'msw' | 'off';
  /** A mock scenario for the jobs this page creates, sent as `Prefer: scenario=NAME` (the mock's per-request choice). */
  readonly scenario?: string;
}

export class AppConfigError extends Error {
  override readonly name = 'AppConfigError';
}

/** The mock server's default address, so `?mock=off` alone reaches `evidence-harness mock`. */
export const defaultApiBaseUrl = 'http://127.0.0.1:4010';

/**
 * @example
 * readAppConfig({ search: '?mock=off&api=http://127.0.0.1:4010', env: import.meta.env })
 */
export function readAppConfig(options: { search: string; env?: Readonly<Record<string, unknown>> }): AppConfig {
  const query = new URLSearchParams(options.search);
  const fromEnv = (name: string) => {
    const value = options.env?.[name];
    return typeof value === 'string' && value !== '' ? value : undefined;
  };
  const apiBaseUrl = query.get('api') ?? fromEnv('VITE_EVIDENCE_API_URL') ?? defaultApiBaseUrl;
  if (!apiBaseUrl.startsWith('/') && !URL.canParse(apiBaseUrl)) {
    throw new AppConfigError(`api must be an absolute URL or a path starting with '/', got '${apiBaseUrl}'`);
  }
  const mock = query.get('mock') ?? fromEnv('VITE_EVIDENCE_MOCK') ?? 'msw';
  if (mock !== 'msw' && mock !== 'off') throw new AppConfigError(`mock must be 'msw' or 'off', got '${mock}'`);
  const scenario = query.get('scenario') ?? undefined;
  if (scenario !== undefined && !/^[a-z0-9-]{1,64}$/.test(scenario)) {
    throw new AppConfigError(`scenario must be a scenario name (lowercase letters, digits, dashes), got '${scenario}'`);
  }
  return { apiBaseUrl, mock, ...(scenario ? { scenario } : {}) };
}
