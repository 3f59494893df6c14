#!/usr/bin/env node
/**
 * Measures a newcomer's first run of the packed package: the time from the command to the first
 * /health answer of `evidence-harness mock`, for each way of running it (docs/performance.md,
 * "First run of the published package"). Each way runs in a scratch folder; "cold" gives npm an
 * empty cache folder of its own, so every package comes from the registry.
 *
 *   npm pack && node scripts/measure-first-run.mjs ./evidence-harness-0.1.0.tgz [--runs 3]
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

const { values, positionals } = parseArgs({ allowPositionals: true, options: { runs: { type: 'string', default: '3' } } });
if (positionals.length !== 1) {
  process.stderr.write('usage: node scripts/measure-first-run.mjs TARBALL [--runs N]\n');
  process.exit(2);
}
const tarball = resolve(positionals[0]);
const runs = Number(values.runs);
const quiet = { NO_COLOR: '1', npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false' };

/** Milliseconds from spawning `command` to the first 200 from its mock's /health. */
async function timeToHealth(command, args, options) {
  const started = performance.now();
  const child = spawn(command, args, { ...options, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr.on('data', (chunk) => {
    output += chunk;
  });
  try {
    const url = await new Promise((resolveUrl, reject) => {
      child.stdout.on('data', () => {
        const match = /listening on (http:\/\/\S+)/.exec(output);
        if (match) resolveUrl(match[1]);
      });
      child.once('exit', (code) => reject(new Error(`${command} exited with ${code}:\n${output}`)));
    });
    const answer = await fetch(`${url}/health`);
    if (answer.status !== 200) throw new Error(`/health answered ${answer.status}`);
    return performance.now() - started;
  } finally {
    process.kill(-child.pid, 'SIGTERM');
  }
}

const median = (list) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)];
const scratch = mkdtempSync(join(tmpdir(), 'eh-first-run-'));
const mockArgs = ['mock', '--port', '0', '--quiet'];
const npxArgs = ['--yes', '--package', tarball, 'evidence-harness', ...mockArgs];
const rows = [];

try {
  // npx with an empty cache: npm fetches every dependency from the registry, unpacks, links.
  const cold = [];
  const warm = [];
  for (let run = 0; run < runs; run += 1) {
    const cache = join(scratch, `cache-${run}`);
    const env = { ...process.env, ...quiet, npm_config_cache: cache };
    cold.push(await timeToHealth('npx', npxArgs, { cwd: scratch, env }));
    // The same cache again: npx finds its install folder for this tarball and installs nothing.
    warm.push(await timeToHealth('npx', npxArgs, { cwd: scratch, env }));
  }
  rows.push(['npx --package TARBALL, empty npm cache (cold)', cold], ['npx --package TARBALL, same cache again (warm)', warm]);

  // Installed in a project: the bin straight from node_modules/.bin.
  const app = join(scratch, 'app');
  execFileSync('mkdir', [app]);
  writeFileSync(join(app, 'package.json'), '{"name":"app","private":true}\n');
  execFileSync('npm', ['i', '--prefer-offline', tarball], { cwd: app, env: { ...process.env, ...quiet }, stdio: 'ignore' });
  const installed = [];
  for (let run = 0; run < runs; run += 1) {
    installed.push(await timeToHealth(join(app, 'node_modules', '.bin', 'evidence-harness'), mockArgs, { cwd: app, env: process.env }));
  }
  rows.push(['node_modules/.bin/evidence-harness (installed)', installed]);
} finally {
  rmSync(scratch, { recursive: true, force: true });
}

const base = median(rows.at(-1)[1]);
process.stdout.write(
  `node ${process.version}, npm ${execFileSync('npm', ['--version'], { encoding: 'utf8' }).trim()}, ${runs} runs each, median\n`,
);
for (const [label, times] of rows) {
  process.stdout.write(
    `${label.padEnd(50)} ${(median(times) / 1000).toFixed(2)} s  (${times.map((t) => (t / 1000).toFixed(2)).join(', ')})  ${(median(times) / base).toFixed(1)}×\n`,
  );
}
