/**
 * @module engine/credentials
 * What the engine learns of its callers' credentials, so that nothing the mock writes repeats
 * them (docs/assumptions.md A-10): every value seen in a credential header (secrets.ts names
 * them: Authorization, X-Api-Key, Cookie…) is taken out of the request log, the journal and
 * coverage exports and the pact, wherever else the client put it (a path, an Idempotency-Key,
 * a body field). One scrubber, bounded as secrets.ts bounds what it learns: the oldest values
 * are forgotten first.
 */
import { defaultCredentialHeaders, Scrubber } from '../contract/secrets.js';
import type { EngineCall } from './call.js';

/** A scrubber that learns nothing yet, with secrets.ts's bounds on what it will learn. */
export function credentialScrubber(): Scrubber {
  return new Scrubber();
}

/**
 * Teaches `scrubber` the values of the call's credential headers; a call without any teaches
 * nothing. Runs on every request: it goes through the handful of headers the call carries when
 * the call can list them, rather than asking for each of the thirty-odd credential header names,
 * and allocates nothing for a value already known.
 */
export function learnCallCredentials(call: EngineCall, scrubber: Scrubber): void {
  if (call.headerNames) {
    for (const name of call.headerNames()) {
      if (!scrubber.isCredentialHeader(name)) continue;
      const value = call.header(name);
      if (value !== null) scrubber.learnHeader(name, value);
    }
    return;
  }
  for (const name of defaultCredentialHeaders) {
    const value = call.header(name);
    if (value !== null) scrubber.learnHeader(name, value);
  }
}
