/**
 * The layering rules of ARCHITECTURE.md. The one that matters most: the contract, the engine
 * and the MSW handlers are isomorphic — no file under them imports a Node built-in — so the
 * same code runs in Node, in MSW's setupServer and in a browser service worker. And the
 * conformance runner never imports the mock it is tested against. The diff engine (src/evolution)
 * is isomorphic too.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { expect, it } from 'vitest';
import { packageRoot } from '../src/openapi/package-root.js';

const root = packageRoot();

/** The files outside src/client the typed client may import: each must import nothing itself. */
const clientSharedFiles = ['src/contract/retry-after.ts'];

/**
 * Layers and what each may import, relative to the package root. The isomorphic ones (no
 * `node` flag) may import no Node built-in, since they run in a browser service worker too.
 */
const layers = [
  { folder: 'src/contract', mayImport: ['src/contract'], packages: ['zod'] },
  { folder: 'src/engine', mayImport: ['src/contract', 'src/engine', 'src/profile', 'scenarios'], packages: ['zod', 'jose', 're2js'] },
  // A server profile: read by the engine, so isomorphic but for the one file reader.
  {
    folder: 'src/profile',
    mayImport: ['src/contract', 'src/profile', 'src/documents'],
    packages: ['zod', 'yaml'],
    nodeFiles: ['src/profile/load.ts'],
  },
  // The MSW handlers hold no rules: they reach only the engine's public entry point. Of them,
  // mocks/node.ts runs in Node only (msw/node): it alone may write a file (writePact).
  // Its pact goes through the project's one writer of named files (src/files/output-file.ts).
  {
    folder: 'mocks',
    mayImport: ['mocks', 'src/engine/index.ts', 'src/files/output-file.ts'],
    packages: ['msw', 'zod'],
    nodeFiles: ['mocks/node.ts'],
  },
  // The typed client runs in browsers and depends on openapi-fetch only. Of the contract it
  // shares the one Retry-After reading, a file that imports nothing (checked below).
  { folder: 'src/client', mayImport: ['src/client', ...clientSharedFiles], packages: ['openapi-fetch'] },
  // The runner tests servers over HTTP only: it may not reach into the mock it is tested against.
  // Of the engine it shares the one linear-time pattern compiler (no engine state), for a pact's
  // regexes and the regex criteria of Arazzo workflows; yaml and zod read and check the untrusted
  // files the runner is given (a workflow file, a pact), as the contract reads requests.
  {
    folder: 'src/conformance',
    mayImport: [
      'src/conformance',
      'src/openapi',
      'src/contract',
      'src/http',
      'src/documents',
      'src/engine/patterns.ts',
      'src/files',
      'src/profile',
    ],
    packages: ['fast-check', 'ajv', '@apidevtools', 'yaml', 'zod'],
    node: true,
  },
  // The diff engine compares two parsed documents: no Node, no packages, of the contract only its
  // one markup escaper (for the Markdown and JUnit reports); the CLI reads and validates the files.
  { folder: 'src/evolution', mayImport: ['src/evolution', 'src/contract/markup.ts'], packages: [] },
  // The one outbound client and server edge: plumbing under every Node-side layer, above none of
  // them. Its early answers are contract Error bodies, built by the contract's one builder.
  {
    folder: 'src/http',
    mayImport: ['src/http', 'src/contract'],
    packages: ['undici'],
    node: true,
  },
];

function sourceFiles(folder: string): string[] {
  const absolute = join(root, folder);
  let entries: string[];
  try {
    entries = readdirSync(absolute);
  } catch {
    return [];
  }
  return entries.flatMap((entry) => {
    const path = join(absolute, entry);
    if (statSync(path).isDirectory()) return sourceFiles(relative(root, path));
    return entry.endsWith('.ts') && !entry.endsWith('.test.ts') ? [path] : [];
  });
}

function importsOf(source: string): string[] {
  const specifiers: string[] = [];
  const pattern = /(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\s*\(\s*['"]([^'"]+)['"]\s*\)|import\s+['"]([^'"]+)['"]/g;
  for (const match of source.matchAll(pattern)) specifiers.push((match[1] ?? match[2] ?? match[3])!);
  return specifiers;
}

const builtins = new Set(builtinModules.flatMap((name) => [name, `node:${name}`]));

it('finds the files it guards', () => {
  for (const layer of layers) expect(sourceFiles(layer.folder).length, layer.folder).toBeGreaterThan(2);
});

it.each(layers)('$folder imports only what its layer may', ({ folder, mayImport, packages, node, nodeFiles = [] }) => {
  const violations: string[] = [];
  for (const file of sourceFiles(folder)) {
    for (const specifier of importsOf(readFileSync(file, 'utf8'))) {
      const where = `${relative(root, file)} imports '${specifier}'`;
      if (specifier.startsWith('node:') || builtins.has(specifier.split('/')[0]!)) {
        if (!node && !nodeFiles.includes(relative(root, file))) violations.push(`${where}: a Node built-in`);
      } else if (specifier.startsWith('.')) {
        const target = relative(root, resolve(dirname(file), specifier));
        const allowedTarget = (allowed: string) => target.startsWith(`${allowed}/`) || target === allowed.replace(/\.ts$/, '.js');
        if (!mayImport.some(allowedTarget)) violations.push(`${where}: outside ${mayImport.join(', ')}`);
      } else if (!packages.includes(specifier.split('/')[0]!)) {
        violations.push(`${where}: a package not allowed in ${folder} (${packages.join(', ')})`);
      }
    }
  }
  expect(violations).toEqual([]);
});

/** Layers that may import much, but never one other layer (ARCHITECTURE.md, "Who may import whom" and "Doors"). */
const forbidden = [
  // The MCP server calls what the commands call, never a command's module.
  { folder: 'src/mcp', never: 'src/cli' },
  // The early answers are contract Error bodies: the server edge needs no engine.
  { folder: 'src/http', never: 'src/engine' },
  // The document loader owns its file reader and text parser; the mock server uses them, not the reverse.
  { folder: 'src/documents', never: 'src/server' },
];

it.each(forbidden)('$folder never imports $never', ({ folder, never }) => {
  const violations: string[] = [];
  for (const file of sourceFiles(folder)) {
    for (const specifier of importsOf(readFileSync(file, 'utf8'))) {
      if (!specifier.startsWith('.')) continue;
      const target = relative(root, resolve(dirname(file), specifier));
      if (target.startsWith(`${never}/`)) violations.push(`${relative(root, file)} imports '${specifier}'`);
    }
  }
  expect(violations).toEqual([]);
});

it('lets the client import only files of the contract that import nothing (so not zod)', () => {
  // The client's row allows these files by name; what they import would reach the client too.
  for (const file of clientSharedFiles) expect(importsOf(readFileSync(join(root, file), 'utf8')), file).toEqual([]);
});

/** The package's name from a bare specifier: 'ajv/dist/2020.js' → 'ajv', '@scope/name/x' → '@scope/name'. */
const packageName = (specifier: string) =>
  specifier
    .split('/')
    .slice(0, specifier.startsWith('@') ? 2 : 1)
    .join('/');

it('imports in shipped code only packages a user install brings (dependencies or declared peers)', () => {
  // A devDependency imported by shipped code works in this repository and fails after
  // `npm install evidence-harness`, where devDependencies are not installed.
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    dependencies?: Record<string, string>;
    peerDependencies?: Record<string, string>;
  };
  const installed = new Set([...Object.keys(manifest.dependencies ?? {}), ...Object.keys(manifest.peerDependencies ?? {})]);
  const missing: string[] = [];
  for (const folder of ['src', 'mocks']) {
    for (const file of sourceFiles(folder)) {
      for (const specifier of importsOf(readFileSync(file, 'utf8'))) {
        if (specifier.startsWith('.') || specifier.startsWith('node:') || builtins.has(specifier.split('/')[0]!)) continue;
        if (!installed.has(packageName(specifier))) missing.push(`${relative(root, file)} imports '${specifier}'`);
      }
    }
  }
  expect(missing).toEqual([]);
});
