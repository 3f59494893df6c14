/**
 * @module conformance/pact/pact-run
 * What --pact changes in a run, in one place: the pact read and compiled before anything is
 * sent, the checks that judge its interactions (the two pact checks and the runner's own
 * response checks — the probes' checks have nothing to judge in a pact run), and its one phase,
 * with its provider states set up through the API or through --provider-states-url. A pact run
 * runs the pact alone, as Pact's verifiers do; the default probes are a run of their own.
 */
import type { Check } from '../checks/check.js';
import { responseChecks, UnknownCheckError } from '../checks/registry.js';
import type { TlsOptions } from '../http/bounded-client.js';
import { Transport } from '../http/transport.js';
import type { ConformanceRun } from '../runner/conformance-run.js';
import { credentialsFromBaseUrl } from '../secrets.js';
import { PactExpectations, pactChecks } from './pact-check.js';
import { type Pact, PactFileError, readPactFile } from './pact-file.js';
import { pactPhase } from './pact-phase.js';
import { ApiStates, type StateSetup, UrlStates } from './provider-states.js';

export interface PactPlan {
  readonly pact: Pact;
  readonly expectations: PactExpectations;
  /** The pact checks of this run (they read its expectations). */
  readonly checks: readonly Check[];
  readonly providerStatesUrl?: string;
}

/** Reads the pact (a file, or one already parsed) and makes its checks; a bad file throws PactFileError. */
export async function pactPlanFor(options: { pact: string | Pact; providerStatesUrl?: string | undefined }): Promise<PactPlan> {
  const pact = typeof options.pact === 'string' ? await readPactFile(options.pact) : options.pact;
  if (options.providerStatesUrl !== undefined) {
    let url: URL;
    try {
      url = new URL(options.providerStatesUrl);
    } catch {
      throw new PactFileError('--provider-states-url is not a URL (for example http://127.0.0.1:8080/_pact/provider-states)');
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw new PactFileError(`--provider-states-url must be http or https, got '${url.protocol}'`);
  }
  const expectations = new PactExpectations();
  return {
    pact,
    expectations,
    checks: pactChecks(expectations, { pending: pact.interactions.some((interaction) => interaction.pending) }),
    ...(options.providerStatesUrl === undefined ? {} : { providerStatesUrl: options.providerStatesUrl }),
  };
}

/**
 * The checks of a pact run: the pact's and the response checks (with --hooks' own), narrowed by
 * --checks and --exclude-checks. A --checks name that judges nothing in a pact run is refused.
 */
export function pactRunChecks(options: {
  plan: PactPlan;
  selected: readonly Check[];
  include: readonly string[];
  hooks: readonly Check[];
}): Check[] {
  const allowed = new Set([...responseChecks, ...options.plan.checks, ...options.hooks].map((check) => check.name));
  const refused = options.include.filter((name) => !allowed.has(name));
  if (refused.length > 0)
    throw new UnknownCheckError(
      `--checks ${refused.join(',')}: not judged in a --pact run, which runs the pact's interactions only; the checks there are: ${[...allowed].join(', ')}`,
    );
  return options.selected.filter((check) => allowed.has(check.name));
}

/** The pact's settings as the report shows them. */
export function reportedPact(plan: PactPlan): Record<string, unknown> {
  const { pact } = plan;
  return {
    file: pact.source,
    consumer: pact.consumer,
    provider: pact.provider,
    specification: pact.specification,
    interactions: pact.interactions.length,
    ...(plan.providerStatesUrl === undefined ? {} : { providerStatesUrl: withoutSecrets(plan.providerStatesUrl) }),
  };
}

/** A URL as a report may show it: no user name, password or query, where a token could be. */
function withoutSecrets(url: string): string {
  const parsed = new URL(url);
  return `${parsed.origin}${parsed.pathname}${parsed.search ? '?…' : ''}`;
}

/** Runs the pact's phase over the run, its state endpoint's calls bounded like the run's own. */
export async function runPactPhase(
  run: ConformanceRun,
  plan: PactPlan,
  options: { tls?: TlsOptions | undefined; signal?: AbortSignal | undefined; scrub: (text: string) => string },
): Promise<void> {
  for (const skipped of plan.pact.notVerified) run.state.runNote(`not verified: ${skipped}`);
  // A user name and password in the URL go as an Authorization header, as for --base-url.
  const stateUrl = plan.providerStatesUrl === undefined ? undefined : credentialsFromBaseUrl(plan.providerStatesUrl);
  const transport =
    stateUrl === undefined
      ? undefined
      : new Transport({
          baseUrl: stateUrl.baseUrl,
          timeoutMs: run.settings.limits.timeoutMs,
          maxResponseBytes: UrlStates.maxAnswerBytes,
          scrub: options.scrub,
          ...(options.tls ? { tls: options.tls } : {}),
          ...(options.signal ? { signal: options.signal } : {}),
        });
  const states: StateSetup = transport
    ? new UrlStates({
        transport,
        note: (message) => run.state.runNote(message),
        deadline: run.settings.limits.deadline,
        ...(stateUrl?.authorization ? { headers: { authorization: stateUrl.authorization } } : {}),
      })
    : new ApiStates();
  try {
    await run.runPhase(
      {
        probe: 'pact',
        label: `pact ${plan.pact.consumer} → ${plan.pact.provider}: ${plan.pact.interactions.length} interaction(s)`,
        run: pactPhase({ pact: plan.pact, expectations: plan.expectations, states }),
      },
      {},
    );
  } finally {
    transport?.close();
  }
}
