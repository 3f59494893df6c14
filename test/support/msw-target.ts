/**
 * The MSW target: the engine's MSW handlers under setupServer, reached with the global fetch
 * that MSW intercepts. One MSW server per test file; each target prepends its handlers, and
 * closing a target removes them.
 */
import { setupServer } from 'msw/node';
import { createHandlers } from '../../mocks/index.js';
import { VirtualClock } from '../../src/engine/index.js';
import type { TargetFactory } from './targets.js';

const server = setupServer();
let listening = false;
const baseUrl = 'http://evidence.mock.test';

export const mswTarget: TargetFactory = {
  name: 'MSW setupServer',
  async create(options = {}) {
    if (!listening) {
      server.listen({ onUnhandledRequest: 'error' });
      listening = true;
    }
    const clock = new VirtualClock({ start: Date.UTC(2026, 10, 22) });
    const { handlers, control } = createHandlers({ ...options, baseUrl, clock });
    server.use(...handlers);
    return {
      fetch: (path, init) => fetch(new URL(path, baseUrl), init),
      control,
      clock,
      close: async () => server.resetHandlers(),
    };
  },
};

/** Stops intercepting; call in afterAll. */
export function closeMswTarget(): void {
  if (listening) server.close();
  listening = false;
}
