/**
 * @module bench/servers
 * How each benchmarked server is launched: the mock from its executable as shipped (the
 * bundle package.json's "bin" names, what `npx evidence-harness mock` runs), Prism's mock from its own JS entry (what `npx prism mock` runs, without npx's
 * start-up in the timing), and the bare node:http ceiling.
 */
import { join } from 'node:path';
import { executablePath, packageRoot } from '../src/openapi/package-root.js';
import { type ChildServer, startChild } from './child-server.js';
import { freePort } from './free-port.js';

export type TargetName = 'mock' | 'prism' | 'bare';

export const targetLabels: Record<TargetName, string> = {
  mock: 'evidence-harness mock',
  prism: 'Prism 5.14.2 mock',
  bare: 'bare node:http',
};

export interface Launch {
  readonly command: string;
  readonly args: readonly string[];
  /** The same launch as a person types it from the package root. */
  readonly display: string;
}

export function launchFor(target: TargetName, port: number): Launch {
  const root = packageRoot();
  switch (target) {
    case 'mock':
      return {
        command: process.execPath,
        args: [executablePath(), 'mock', '--port', String(port), '--quiet'],
        display: 'node dist/cli/evidence-harness.js mock --port PORT --quiet',
      };
    case 'prism':
      return {
        command: process.execPath,
        args: [
          join(root, 'node_modules/@stoplight/prism-cli/dist/index.js'),
          'mock',
          join(root, 'spec/openapi.yaml'),
          '-p',
          String(port),
          '-h',
          '127.0.0.1',
          '-v',
          'silent',
          // Prism forks its HTTP server into another process when NODE_ENV=production; the CPU
          // figures read this process, so it must serve the requests itself.
          '--no-multiprocess',
        ],
        display: 'npx prism mock spec/openapi.yaml -p PORT -h 127.0.0.1 -v silent --no-multiprocess',
      };
    case 'bare':
      return {
        command: process.execPath,
        args: [join(root, 'dist/bench/children/bare-server.js'), '--port', String(port)],
        display: 'node dist/bench/children/bare-server.js --port PORT',
      };
  }
}

/** The mock with its request log on (no --quiet), as `evidence-harness mock` runs by default. */
export function launchMockLogged(port: number): Launch {
  const quiet = launchFor('mock', port);
  return {
    command: quiet.command,
    args: quiet.args.filter((arg) => arg !== '--quiet'),
    display: 'node dist/cli/evidence-harness.js mock --port PORT | cat',
  };
}

/** Starts `target` on a free loopback port and waits for its first 200 on /health. */
export async function startTarget(target: TargetName): Promise<ChildServer> {
  const port = await freePort();
  const launch = launchFor(target, port);
  return startChild({ command: launch.command, args: launch.args, port, cwd: packageRoot(), timeoutMs: 30_000 });
}

/** Starts the mock with its request log on, its stdout a pipe that `cat` reads. */
export async function startMockLogged(): Promise<ChildServer> {
  const port = await freePort();
  const launch = launchMockLogged(port);
  return startChild({ command: launch.command, args: launch.args, port, cwd: packageRoot(), timeoutMs: 30_000, stdout: 'pipe' });
}
