/**
 * The engine under a base path (`--base-path /api`, or MSW with baseUrl 'http://host/api'):
 * normalised once, matched by whole segments, and paths outside it answered with a plain 404.
 */
import { expect, it } from 'vitest';
import { createMockEngine, normalizeBasePath } from '../../src/engine/index.js';

const get = (engine: ReturnType<typeof createMockEngine>, path: string) => engine.handle(new Request(`http://mock.test${path}`));

it('normalises a base path, and refuses one that is not a path', () => {
  expect(['/api', 'api', '/api/', ' /api// '].map(normalizeBasePath)).toEqual(['/api', '/api', '/api', '/api']);
  expect(['', '/', undefined].map(normalizeBasePath)).toEqual(['', '', '']);
  expect(normalizeBasePath('/v1/evidence')).toBe('/v1/evidence');
  expect(() => normalizeBasePath('/a b')).toThrow("basePath must be a path such as '/api', got '/a b'");
  expect(() => normalizeBasePath('/api?x=1')).toThrow(TypeError);
});

it('serves the contract under the base path, by whole segments only', async () => {
  const engine = createMockEngine({ basePath: 'api/' });
  expect((await get(engine, '/api/health')).status).toBe(200);
  const outside = await get(engine, '/apiv0/health');
  expect(outside.status).toBe(404);
  expect(await outside.json()).toEqual({
    code: 'route_not_found',
    message: 'The contract is served under /api; /apiv0/health is outside it.',
  });
  expect((await get(engine, '/health')).status).toBe(404);
  const inside = await get(engine, '/api/nowhere');
  expect(await inside.json()).toEqual({ code: 'route_not_found', message: 'No operation of the contract has the path /nowhere.' });
});
