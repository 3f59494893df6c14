/**
 * @module conformance/checks/assumption-checks
 * Advisory checks of how a server answers outside the four operations: an undeclared method on
 * a contract path and an undeclared path (docs/assumptions.md A-20), and ignored_auth: a job
 * answered the same to a request without the caller's credentials.
 */
import { createHash } from 'node:crypto';
import { fail, pass } from '../failures.js';
import { answered, type Check, forIntent, received, unlessRateLimited } from './check.js';

export const undeclaredMethodRejected: Check = {
  name: 'undeclared_method_rejected',
  description: 'a method a contract path does not declare gets 405 with an Allow header',
  severity: 'advisory',
  assumption: 'A-20',
  probes: ['undeclared-method'],
  judge: forIntent(['undeclared-method'], (exchange, context) =>
    unlessRateLimited(
      answered('405 with Allow', (answer) =>
        answer.response.status === 405 && answer.response.headers.allow
          ? pass
          : fail({
              title: `${exchange.intent.method} ${exchange.intent.path} answered ${answer.response.status}${answer.response.headers.allow ? '' : ' without Allow'}`,
              expected: '405 with an Allow header listing the declared methods',
              received: received(answer),
            }),
      ),
    )(exchange, context),
  ),
};

export const undeclaredPathNotFound: Check = {
  name: 'undeclared_path_not_found',
  description: 'a path outside the contract gets 404',
  severity: 'advisory',
  assumption: 'A-20',
  probes: ['undeclared-path'],
  judge: forIntent(['undeclared-path'], (exchange, context) =>
    unlessRateLimited(
      answered('404', (answer) =>
        answer.response.status === 404
          ? pass
          : fail({ title: `undeclared path answered ${answer.response.status}`, expected: '404', received: received(answer) }),
      ),
    )(exchange, context),
  ),
};

export const ignoredAuth: Check = {
  name: 'ignored_auth',
  description: "a caller's job is not answered the same to a request without its credentials (--header)",
  severity: 'advisory',
  assumption: 'A-10',
  probes: ['ignored-auth'],
  // Jobs shared between callers are shared with no caller too: one defect, reported by isolation.
  requires: ['second_caller_isolation'],
  judge: forIntent(['without-credentials'], (exchange, context) =>
    unlessRateLimited(
      answered('an answer that differs from the one given with credentials (401, 403 or 404)', (answer) => {
        const { status, bodyDigest } = exchange.intent.answer;
        const same =
          answer.response.status === status && createHash('sha256').update(answer.response.bodyText).digest('hex') === bodyDigest;
        if (!same) return pass;
        return fail({
          title: `the job was answered ${status}, the same, without ${exchange.intent.removed.join(', ')}`,
          expected: `401, 403 or 404 (an answer that differs from the one given with ${exchange.intent.removed.join(', ')})`,
          received: received(answer),
        });
      }),
    )(exchange, context),
  ),
};
