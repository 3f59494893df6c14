/**
 * Nothing left behind (issue 33): a run's long request bodies go only into a folder the user
 * named (--keep-bodies, or beside --report), bounded; without one nothing is written to the temp
 * folder, however many runs fail; and what earlier versions left there is removed.
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { runMain } from '../support/run-main.js';
import { testTimeout } from '../support/time-limits.js';

let server: Server;
let baseUrl: string;
let privateTmp: string;
const ownTmp = process.env.TMPDIR;

beforeEach(async () => {
  // os.tmpdir() reads TMPDIR at each call: the runs' temp folder is this test's own.
  privateTmp = mkdtempSync(join(tmpdir(), 'eh-private-tmp-'));
  process.env.TMPDIR = privateTmp;
  // 500 to every body too long for a curl line, so that each failure reproduces one (a server
  // that answers 500 to everything fails a small example first, and its failures are grouped).
  server = createServer((request, response) => {
    let length = 0;
    request.on('data', (chunk: Buffer) => (length += chunk.length));
    request.on('end', () =>
      response.writeHead(length > 16 * 1024 ? 500 : 200, { 'content-type': 'application/json' }).end('{"code":"internal_error"}'),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterEach(async () => {
  if (ownTmp === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = ownTmp;
  await new Promise((resolve) => server.close(resolve));
  rmSync(privateTmp, { recursive: true, force: true });
});

/** A run that fails on the largest valid bodies (verifyReport's are megabytes), and only on them. */
const failingRun = (...extra: string[]) =>
  runMain(
    'conformance',
    '--base-url',
    baseUrl,
    '--quiet',
    '--include-operation',
    'verifyReport',
    '--checks',
    'positive_data_acceptance,not_a_server_error',
    '--seed',
    '7',
    ...extra,
  );

it(
  'leaves nothing in the temp folder after 20 failing runs without a folder named for bodies',
  async () => {
    for (let run = 0; run < 20; run += 1) {
      const { code, stdout } = await failingRun();
      expect(code, stdout.slice(-2000)).toBe(1);
      if (run === 0) expect(stdout).toMatch(/Request bodies over 16 KiB are left out of the curl lines/);
    }
    expect(readdirSync(privateTmp)).toEqual([]);
  },
  testTimeout({ processes: 20 }),
);

it('keeps the bodies in the --keep-bodies folder, says where and how much, and the curl lines read them', async () => {
  const kept = join(privateTmp, 'kept');
  const { code, stdout, stderr } = await failingRun('--keep-bodies', kept);
  expect(code).toBe(1);
  const files = readdirSync(kept);
  expect(files.length).toBeGreaterThan(0);
  expect(stderr).toMatch(new RegExp(`${files.length} request bodies too long for a curl line \\([\\d.]+ MB\\) are in ${kept}`));
  expect(stdout).toContain(`--data-binary '@${join(kept, files[0]!)}'`);
});

it('removes the body folders earlier versions left in the temp folder, but not those of a running process', async () => {
  const old = join(privateTmp, `evidence-harness-${process.getuid?.() ?? 'user'}`);
  for (const name of ['bodies-999999999', 'bodies-seed-11', `bodies-${process.pid}`]) {
    mkdirSync(join(old, name), { recursive: true });
    writeFileSync(join(old, name, 'exchange-1.json'), '{}');
  }
  await failingRun();
  expect(readdirSync(old)).toEqual([`bodies-${process.pid}`]);
});
