/**
 * @module mocks/csp-safe-zod
 * Imported first by the browser entry: zod probes for `new Function` before its first object
 * parse, and the engine parses zod schemas as soon as it is used. In the bundle it keeps a chunk
 * of its own, loaded right after zod's (scripts/bundle-lib.mjs). A page under a strict
 * Content-Security-Policy reports that probe as a violation even though zod catches it, so the
 * browser entry turns zod's JIT off before any engine module runs.
 */
import * as z from 'zod';

z.config({ jitless: true });
