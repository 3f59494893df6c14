/**
 * docs/scale-out.md's recipe, as written: two `mock --store` replicas behind
 * examples/scale-out/round-robin.mjs. A client that only knows the balancer creates and polls
 * to COMPLETE, and keeps working when one replica is killed.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packageRoot } from '../../src/openapi/package-root.js';
import { cliChildrenKilledAfterEach } from '../support/cli-child.js';
import { evaluationRequest } from '../support/fixtures.js';
import { redisAvailable, startTestRedis, type TestRedis } from '../support/redis-server.js';

const spawnCli = cliChildrenKilledAfterEach();
let redis: TestRedis;

describe.runIf(redisAvailable)('the scale-out recipe', () => {
  beforeAll(async () => {
    redis = await startTestRedis();
  });
  afterAll(async () => {
    await redis?.close();
  });

  it('serves one mock through a round-robin over two replicas, and survives losing one', async () => {
    const replicas = [0, 1].map(() => spawnCli(['mock', '--port', '0', '--quiet', '--store', redis.url, '--store-namespace', 'recipe']));
    const urls = await Promise.all(replicas.map(async (replica) => (await replica.waitFor(/listening on (http:\/\/[^ ]+)/))[1]!));
    const balancer = spawn(process.execPath, [join(packageRoot(), 'examples/scale-out/round-robin.mjs'), '--port', '0', ...urls], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    try {
      const base = await new Promise<string>((resolve, reject) => {
        let output = '';
        balancer.stdout.on('data', (chunk) => {
          output += chunk;
          const match = /round-robin on (http:\/\/[^ ]+)/.exec(output);
          if (match) resolve(match[1]!);
        });
        balancer.once('exit', (code) => reject(new Error(`round-robin exited ${code}: ${output}`)));
      });
      const headers = { authorization: 'Bearer recipe', 'content-type': 'application/json', 'idempotency-key': 'recipe-1' };
      const created = await fetch(`${base}/v0/evaluations`, { method: 'POST', headers, body: JSON.stringify(evaluationRequest()) });
      expect(created.status).toBe(202);
      const { jobId } = (await created.json()) as { jobId: string };
      const statuses = [];
      for (let read = 0; read < 3; read += 1) {
        statuses.push(((await (await fetch(`${base}/v0/jobs/${jobId}`, { headers })).json()) as { status: string }).status);
      }
      expect(statuses).toEqual(['RUNNING', 'RUNNING', 'COMPLETE']);

      replicas[0]!.child.kill('SIGKILL');
      await replicas[0]!.exit;
      for (let read = 0; read < 4; read += 1) {
        const answer = await fetch(`${base}/v0/jobs/${jobId}`, { headers });
        expect(answer.status).toBe(200);
        expect(((await answer.json()) as { status: string }).status).toBe('COMPLETE');
      }
    } finally {
      balancer.kill('SIGKILL');
    }
  });
});
