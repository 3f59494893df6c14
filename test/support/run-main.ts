/**
 * The CLI's `main` in this process, as the tests of its messages and commands call it: the exit
 * code and everything it wrote to stdout and stderr.
 */
import { main } from '../../src/cli/main.js';

export async function runMain(...argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await main(argv, { stdout: (text) => (stdout += text), stderr: (text) => (stderr += text) });
  return { code, stdout, stderr };
}
