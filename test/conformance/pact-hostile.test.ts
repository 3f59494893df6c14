/**
 * A pact file is untrusted input: too large, nested too deep, holding a regex a backtracking
 * engine would take for ever on, naming a matcher nobody defined — each is refused with a clear
 * message (a usage error, exit 2) or run in bounded time, never a crash or a hang.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { matchJsonBody } from '../../src/conformance/pact/body-matching.js';
import { PactFileError, pactLimits, parsePact, readPactFile } from '../../src/conformance/pact/pact-file.js';
import { PatternCache, readCategory, readContext } from '../../src/conformance/pact/rules.js';
import { type RunningFaultServer, startFaultServer } from '../fixtures/fault-zoo/fault-server.js';
import { fifosReleasedAfterEach } from '../support/fifo.js';
import { runMain } from '../support/run-main.js';
import { inTime } from '../support/time-limits.js';

const fixture = new URL('../fixtures/pact/web-app-evidence-service.json', import.meta.url).pathname;
const folder = mkdtempSync(join(tmpdir(), 'eh-pact-hostile-'));
const makeFifo = fifosReleasedAfterEach();

function fileWith(name: string, text: string): string {
  const file = join(folder, name);
  writeFileSync(file, text);
  return file;
}

/** The fixture with its first interaction's response rules replaced. */
function withRules(body: Record<string, unknown>): string {
  const pact = JSON.parse(readFileSync(fixture, 'utf8'));
  pact.interactions[0].response.matchingRules = { body };
  return JSON.stringify(pact);
}

async function refusal(text: string): Promise<string> {
  try {
    await parsePact(text, 'pact.json');
  } catch (error) {
    expect(error).toBeInstanceOf(PactFileError);
    return (error as Error).message;
  }
  throw new Error('the pact was accepted');
}

describe('refused with a clear message', () => {
  it('a file over the size bound, read no further than the bound', async () => {
    const huge = fileWith('huge.json', `{"consumer":{"name":"${'x'.repeat(pactLimits.maxBytes)}"}}`);
    await expect(readPactFile(huge)).rejects.toThrow(/larger than 8 MiB/);
  });

  it('a FIFO or a device, without waiting on it', async () => {
    const fifo = join(folder, 'pact.fifo');
    makeFifo(fifo);
    await expect(readPactFile(fifo)).rejects.toThrow(/not a regular file/);
    await expect(readPactFile('/dev/zero')).rejects.toThrow(/not a regular file/);
  });

  it('deep nesting, before JSON.parse', async () => {
    const deep = `{"consumer":${'['.repeat(100_000)}${']'.repeat(100_000)}}`;
    expect(await refusal(deep)).toMatch(/the pact file nested deeper than 64 levels/);
  });

  it('not JSON, and not a pact', async () => {
    expect(await refusal('{"consumer": ')).toMatch(/not JSON/);
    expect(await refusal('{"interactions": []}')).toMatch(/not a pact file: consumer/);
    expect(await refusal(JSON.stringify({ consumer: { name: 'a' }, provider: { name: 'b' }, interactions: [] }))).toMatch(
      /no HTTP interaction/,
    );
  });

  it('deep nesting hidden in an encoded body', async () => {
    const pact = JSON.parse(readFileSync(fixture, 'utf8'));
    pact.interactions[0].response.body = {
      contentType: 'application/json',
      encoded: 'json',
      content: `${'['.repeat(10_000)}${']'.repeat(10_000)}`,
    };
    expect(await refusal(JSON.stringify(pact))).toMatch(/response\.body: the body nested deeper than 64 levels/);
  });

  it('a request header that would split the request', async () => {
    const pact = JSON.parse(readFileSync(fixture, 'utf8'));
    pact.interactions[0].request.headers['X-Injected'] = ['a\r\nX-Other: b'];
    expect(await refusal(JSON.stringify(pact))).toMatch(/request header X-Injected has characters a header cannot carry/);
  });

  it('more interactions than the bound', async () => {
    const many = JSON.stringify({
      consumer: { name: 'a' },
      provider: { name: 'b' },
      interactions: Array.from({ length: 1001 }, () => ({})),
    });
    expect(await refusal(many)).toMatch(/interactions/);
  });

  it('an unknown matcher, naming it, the interaction and the path', async () => {
    const message = await refusal(withRules({ '$.jobId': { matchers: [{ match: 'frobnicate' }] } }));
    expect(message).toMatch(
      /interaction 1 'create an evaluation job'.*\$\.jobId.*unknown matcher "frobnicate"; this runner knows equality, regex/,
    );
  });

  it('an unknown generator', async () => {
    const pact = JSON.parse(readFileSync(fixture, 'utf8'));
    pact.interactions[0].request.generators = { header: { 'Idempotency-Key': { type: 'Astrology' } } };
    expect(await refusal(JSON.stringify(pact))).toMatch(/unknown generator "Astrology"/);
  });

  it('a regex a linear-time engine cannot run (a backreference, a lookahead), or too large', async () => {
    expect(await refusal(withRules({ '$.jobId': { matchers: [{ match: 'regex', regex: '^(a)\\1$' }] } }))).toMatch(/backreference/);
    expect(await refusal(withRules({ '$.jobId': { matchers: [{ match: 'regex', regex: '^(?=a)a$' }] } }))).toMatch(/lookahead/);
    expect(await refusal(withRules({ '$.jobId': { matchers: [{ match: 'regex', regex: '(a{100}){100}' }] } }))).toMatch(/instructions/);
  });

  it('more regular expressions than a pact may compile', async () => {
    const pact = JSON.parse(readFileSync(fixture, 'utf8'));
    const regexes = (offset: number) =>
      Object.fromEntries(Array.from({ length: 300 }, (_, n) => [`$.f${n}`, { matchers: [{ match: 'regex', regex: `^x${offset + n}$` }] }]));
    pact.interactions[0].response.matchingRules = { body: regexes(0) };
    pact.interactions[1].response.matchingRules = { body: regexes(300) };
    expect(await refusal(JSON.stringify(pact))).toMatch(/more than 500 different regular expressions/);
  });

  it('a date format with letters it does not read, and a bad path expression', async () => {
    expect(await refusal(withRules({ '$.at': { matchers: [{ match: 'timestamp', format: 'yyyy QQQ' }] } }))).toMatch(/letter 'Q'/);
    expect(await refusal(withRules({ '$.a[x]': { matchers: [{ match: 'type' }] } }))).toMatch(/cannot be read/);
  });

  it('arrayContains nested past its bound', async () => {
    let rule: Record<string, unknown> = { match: 'type' };
    for (let depth = 0; depth < 8; depth += 1)
      rule = { match: 'arrayContains', variants: [{ index: 0, rules: { $: { matchers: [rule] } } }] };
    expect(await refusal(withRules({ '$.list': { matchers: [rule] } }))).toMatch(/nested more than 4 deep/);
  });

  it('exits 2 from the command line, saying what is wrong with the file', async () => {
    const bad = fileWith('bad.json', withRules({ '$.jobId': { matchers: [{ match: 'frobnicate' }] } }));
    const result = await runMain('conformance', '--base-url', 'http://127.0.0.1:9', '--pact', bad);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--pact .*unknown matcher "frobnicate"/);
    const missing = await runMain('conformance', '--base-url', 'http://127.0.0.1:9', '--pact', join(folder, 'none.json'));
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/no such file/);
    const stateUrlAlone = await runMain(
      'conformance',
      '--base-url',
      'http://127.0.0.1:9',
      '--provider-states-url',
      'http://127.0.0.1:9/states',
    );
    expect(stateUrlAlone.code).toBe(2);
    expect(stateUrlAlone.stderr).toMatch(/give --pact FILE too/);
    const pactCheckAlone = await runMain('conformance', '--base-url', 'http://127.0.0.1:9', '--checks', 'pact_interaction_matches');
    expect(pactCheckAlone.code).toBe(2);
    expect(pactCheckAlone.stderr).toMatch(/judges a pact's interactions; give --pact FILE/);
  });
});

describe('run in bounded time', () => {
  it('a regex that backtracks exponentially in JavaScript runs in linear time on RE2', async () => {
    const rules = await readCategory(
      { '$.id': { matchers: [{ match: 'regex', regex: '^(a+)+$' }] } },
      'test',
      readContext(new PatternCache()),
    );
    const started = performance.now();
    const mismatches = matchJsonBody({ expected: { id: 'a' }, actual: { id: `${'a'.repeat(100_000)}!` }, rules });
    expect(mismatches).toHaveLength(1);
    // Ends: a backtracking match of 100,000 characters never would (its speed is the bench's).
    expect(performance.now() - started).toBeLessThan(inTime());
  });

  it('arrayContains over a large answer stays within its step budget', async () => {
    const rules = await readCategory(
      {
        $: {
          matchers: [
            {
              match: 'arrayContains',
              variants: Array.from({ length: 64 }, () => ({
                index: 0,
                rules: { '$.n': { matchers: [{ match: 'integer' }, { match: 'equality' }] } },
              })),
            },
          ],
        },
      },
      'test',
      readContext(new PatternCache()),
    );
    const actual = Array.from({ length: 50_000 }, (_, n) => ({ n }));
    const started = performance.now();
    let outcome: unknown;
    try {
      outcome = matchJsonBody({ expected: [{ n: -1 }], actual, rules });
    } catch (error) {
      outcome = error;
    }
    // Either judged or refused as too complex, within seconds, never a hang.
    expect(outcome instanceof Error ? outcome.name : 'judged').toMatch(/TooComplexToMatch|judged/);
    expect(performance.now() - started).toBeLessThan(inTime());
  });
});

describe('a provider answering past the bounds', () => {
  let deep: RunningFaultServer;
  beforeAll(async () => {
    deep = await startFaultServer(async (request, engine) => {
      if (request.method === 'POST')
        return new Response(`${'['.repeat(1000)}${']'.repeat(1000)}`, { status: 202, headers: { 'content-type': 'application/json' } });
      return engine.handle(request);
    });
  });
  afterAll(async () => {
    await deep.close();
  });

  it('fails the interaction with what was wrong with the answer, without parsing it', async () => {
    const result = await runMain(
      'conformance',
      '--base-url',
      deep.url,
      '--pact',
      fixture,
      '--quiet',
      '--checks',
      'pact_interaction_matches',
    );
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/answer nested deeper than 64 levels/);
  });
});
