/**
 * @module openapi/bundled-document
 * An OpenAPI 3.1 document read once, validated as `loadContract` validates it, and kept
 * bundled rather than dereferenced: every `$ref` made local but left in place, so that the diff
 * (src/evolution) can follow references itself, see where a schema is defined, and stop at a
 * recursive one instead of meeting a cyclic object.
 */
import SwaggerParser from '@apidevtools/swagger-parser';
import { InvalidSpecError, invalidSpecError } from './document.js';

export interface BundledDocument {
  readonly source: string;
  /** The bundled document: plain JSON values, every $ref local (`#/...`). */
  readonly document: Record<string, any>;
}

export async function loadBundledDocument(options: { readonly source: string }): Promise<BundledDocument> {
  const { source } = options;
  let document: Record<string, any>;
  try {
    document = (await SwaggerParser.bundle(source)) as Record<string, any>;
    // validate() dereferences what it is given in place; a copy keeps the bundled form intact.
    await SwaggerParser.validate(structuredClone(document) as never);
  } catch (error) {
    if (error instanceof RangeError) throw new InvalidSpecError(`${source}: the document nests too deeply to read (${error.message})`);
    throw invalidSpecError(source, error);
  }
  if (typeof document.openapi !== 'string' || !document.openapi.startsWith('3.1')) {
    throw new InvalidSpecError(`${source}: expected an OpenAPI 3.1 document, found ${String(document.openapi ?? document.swagger)}`);
  }
  return { source, document };
}
