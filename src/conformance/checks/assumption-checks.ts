/**
 * @module conformance/checks/assumption-checks
 * Advisory checks of how a server answers outside the four operations: an undeclared method on
 * a contract path and an undeclared path (docs/assumptions.md A-20).
 */
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
