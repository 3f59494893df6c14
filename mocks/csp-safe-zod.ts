/**
 * @module mocks/csp-safe-zod
 * Imported first by the browser entry: zod probes for `new Function` before its first object
 * parse, and the engine parses its shipped scenarios as its modules load. A page under a strict
 * Content-Security-Policy reports that probe as a violation even though zod catches it, so the
 * browser entry turns zod's JIT off before any engine module runs.
 */
import * as z from 'zod';

z.config({ jitless: true });
