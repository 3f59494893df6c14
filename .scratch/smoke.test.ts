import { it, expect } from 'vitest';
import { loadContract } from '../src/openapi/document.js';
import { loadBundledDocument } from '../src/openapi/bundled-document.js';
it('smoke', async () => {
  const t = Date.now();
  const c = await loadContract();
  console.log(c.source, c.operations.length, Date.now() - t);
  const b = await loadBundledDocument({ source: 'spec/openapi.yaml' });
  console.log(b.source, Object.keys(b.document.paths));
});
