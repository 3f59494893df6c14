/**
 * @module openapi/bundled-document
 * An OpenAPI 3.1 document read once, validated as `loadContract` validates it, and kept
 * bundled rather than dereferenced: every `$ref` made local but left in place, so that the diff
 * (src/evolution) can follow references itself, see where a schema is defined, and stop at a
 * recursive one instead of meeting a cyclic object.
 */
import { readFile } from 'node:fs/promises';
import SwaggerParser from '@apidevtools/swagger-parser';
import { parse } from 'yaml';
import { InvalidSpecError, invalidSpecError } from './document.js';

/**
 * Most alias uses a YAML document may make, by the yaml package's count, which weighs each by
 * what it expands to. swagger-parser's YAML reader expands aliases without a bound, so a few
 * hundred bytes of nested aliases (a "billion laughs") would hold it for ever; the text is
 * read with this bound first. JSON has no aliases and passes at no cost but the parse.
 */
const maxYamlAliases = 100;

async function refuseAliasBombs(source: string): Promise<void> {
  let text: string;
  try {
    text = await readFile(source, 'utf8');
  } catch {
    return; // not a local file (a URL): swagger-parser reads it and says what is wrong
  }
  try {
    parse(text, { maxAliasCount: maxYamlAliases });
  } catch (error) {
    if (/alias/i.test((error as Error).message))
      throw new InvalidSpecError(
        `${source}: its YAML aliases expand beyond what the diff reads (${(error as Error).message.split('\n')[0]})`,
      );
    // Any other syntax error is swagger-parser's to report, in its words.
  }
}

export interface BundledDocument {
  readonly source: string;
  /** The bundled document: plain JSON values, every $ref local (`#/...`). */
  readonly document: Record<string, any>;
}

export async function loadBundledDocument(options: { readonly source: string }): Promise<BundledDocument> {
  const { source } = options;
  await refuseAliasBombs(source);
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
