/**
 * The doors of ARCHITECTURE.md ("Doors") are enforced by `npm run lint`: a file write, a document
 * read, outbound HTTP and an address decision added outside its door fail, with a message naming
 * the door. Each fixture text is linted as if it were a file at a path of this repository: the
 * project's own Biome configuration and plugins are copied into a temporary root, the text is
 * written there at that path, and Biome lints the lot in one run. The same text inside its door
 * passes, so the rule is about where the code is, not what it says.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { packageRoot } from '../../src/openapi/package-root.js';
import { inTime } from '../support/time-limits.js';

const root = packageRoot();

const doors = {
  files: 'write through src/files/output-file.ts',
  http: 'send through src/http/outbound-client.ts',
  documents: 'read through src/documents',
  addresses: 'decide addresses in src/documents/address-guard.ts',
  byName: 'Import this module by name',
} as const;

const texts = {
  write: "import { writeFile } from 'node:fs/promises';\nexport const save = (path: string) => writeFile(path, 'text');\n",
  fetch: 'export const get = (url: string) => fetch(url);\n',
  globalFetch: 'export const get = (url: string) => globalThis.fetch(url);\n',
  undici: "import { request } from 'undici';\nexport const send = (url: string) => request(url);\n",
  httpRequest: "import { request } from 'node:https';\nexport const send = (url: string) => request(url);\n",
  read: "import { readFile } from 'node:fs/promises';\nexport const load = (path: string) => readFile(path, 'utf8');\n",
  dns: "import { lookup } from 'node:dns/promises';\nexport const where = (host: string) => lookup(host);\n",
  isIp: "import { isIP } from 'node:net';\nexport const literal = (host: string) => isIP(host) !== 0;\n",
  namespace: "import * as fs from 'node:fs';\nexport const save = (path: string) => fs.writeFileSync(path, 'text');\n",
  dynamic: "export const save = async (path: string) => (await import('node:fs/promises')).writeFile(path, 'text');\n",
  serve:
    "import { createServer } from 'node:http';\nimport type { Socket } from 'node:net';\nexport const serve = () => createServer();\nexport type { Socket };\n",
};

/** Each case: a text, where it is put, and the door its message must name (undefined: it passes). */
const cases: { name: string; text: string; path: string; door: string | undefined }[] = [
  { name: 'a file write in src/cli', text: texts.write, path: 'src/cli/fixture-write.ts', door: doors.files },
  { name: 'a file write in mocks/', text: texts.write, path: 'mocks/fixture-write.ts', door: doors.files },
  { name: 'a file write in src/files', text: texts.write, path: 'src/files/fixture-write.ts', door: undefined },
  { name: 'a fetch() call in src/mcp', text: texts.fetch, path: 'src/mcp/fixture-fetch.ts', door: doors.http },
  { name: 'globalThis.fetch in src/proxy', text: texts.globalFetch, path: 'src/proxy/fixture-global-fetch.ts', door: doors.http },
  { name: 'a fetch() call in src/http', text: texts.fetch, path: 'src/http/fixture-fetch.ts', door: undefined },
  { name: 'globalThis.fetch in src/client (a browser client)', text: texts.globalFetch, path: 'src/client/fixture.ts', door: undefined },
  { name: 'an undici import in src/cli', text: texts.undici, path: 'src/cli/fixture-undici.ts', door: doors.http },
  { name: 'an undici import in src/http', text: texts.undici, path: 'src/http/fixture-undici.ts', door: undefined },
  { name: 'a node:https request in src/conformance', text: texts.httpRequest, path: 'src/conformance/fixture.ts', door: doors.http },
  { name: 'a document read in src/cli', text: texts.read, path: 'src/cli/fixture-read.ts', door: doors.documents },
  { name: 'a document read in src/server', text: texts.read, path: 'src/server/fixture-read.ts', door: doors.documents },
  { name: 'a document read in src/documents', text: texts.read, path: 'src/documents/fixture-read.ts', door: undefined },
  { name: 'a DNS lookup in src/mcp', text: texts.dns, path: 'src/mcp/fixture-dns.ts', door: doors.addresses },
  { name: 'isIP in src/server', text: texts.isIp, path: 'src/server/fixture-is-ip.ts', door: doors.addresses },
  { name: 'a DNS lookup in the address guard', text: texts.dns, path: 'src/documents/address-guard.ts', door: undefined },
  { name: 'a namespace import of node:fs in src/cli', text: texts.namespace, path: 'src/cli/fixture-namespace.ts', door: doors.byName },
  { name: 'a dynamic import of node:fs in src/proxy', text: texts.dynamic, path: 'src/proxy/fixture-dynamic.ts', door: doors.byName },
  {
    name: 'a server and a Socket type in src/server (not outbound)',
    text: texts.serve,
    path: 'src/server/fixture-serve.ts',
    door: undefined,
  },
];

/** The categories of the doors' rules; other rules (unused names and the like) are not this test's business. */
const doorCategories = new Set(['lint/style/noRestrictedImports', 'lint/style/noRestrictedGlobals', 'plugin']);

interface Diagnostic {
  readonly category: string;
  readonly message: string;
  /** Notes under the message: noRestrictedGlobals gives its own line and the configured text as a note. */
  readonly advices: unknown;
  readonly location: { readonly path: string };
}

let scratch: string;
const messagesByPath = new Map<string, string[]>();

beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), 'eh-doors-lint-'));
  cpSync(join(root, 'biome.jsonc'), join(scratch, 'biome.jsonc'));
  cpSync(join(root, 'scripts', 'lint'), join(scratch, 'scripts', 'lint'), { recursive: true });
  for (const { text, path } of cases) {
    mkdirSync(dirname(join(scratch, path)), { recursive: true });
    writeFileSync(join(scratch, path), text);
  }
  const biome = spawnSync(join(root, 'node_modules', '.bin', 'biome'), ['lint', '--reporter=json', '--max-diagnostics=none', '.'], {
    cwd: scratch,
    encoding: 'utf8',
    timeout: inTime(),
  });
  const report = JSON.parse(biome.stdout) as { diagnostics: Diagnostic[] };
  for (const diagnostic of report.diagnostics) {
    if (!doorCategories.has(diagnostic.category)) continue;
    const path = diagnostic.location.path.replace(/^\.\//, '');
    messagesByPath.set(path, [...(messagesByPath.get(path) ?? []), `${diagnostic.message} ${JSON.stringify(diagnostic.advices)}`]);
  }
}, inTime());

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

it.each(cases)('$name: $path', ({ path, door }) => {
  const messages = messagesByPath.get(path) ?? [];
  if (door === undefined) expect(messages).toEqual([]);
  else
    expect(
      messages.some((message) => message.includes(door)),
      messages.join('\n') || 'no message',
    ).toBe(true);
});
