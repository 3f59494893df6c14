/**
 * @module engine/method-handling
 * Stage 1 under a profile that answers OPTIONS or refuses HEAD (A-20.options, A-20.head): the
 * answer to such a request on a contract path, before routing. Without those entries (and
 * without a profile) the router answers: OPTIONS is an undeclared method, HEAD is GET.
 */
import type { ServerProfile } from '../profile/profile.js';
import type { EngineAnswer } from './call.js';
import type { ContractRoute } from './engine-contract.js';
import type { EngineError } from './responses.js';
import { allowList, declaredMethodsAt } from './router.js';

/** The profile's own answer to an OPTIONS or HEAD on a contract path, or undefined: route it as usual. */
export function methodAnswer(options: {
  method: string;
  path: string;
  routes: readonly ContractRoute[];
  profile: ServerProfile;
}): { readonly answer: EngineAnswer } | { readonly refusal: EngineError } | undefined {
  const { profile } = options;
  const method = options.method.toUpperCase();
  if (method !== 'OPTIONS' && method !== 'HEAD') return undefined;
  const declared = declaredMethodsAt(options.path, options.routes);
  if (declared.length === 0 || declared.includes(method)) return undefined;
  const allow = allowList(declared, profile.entries['A-20.allow'].adds).join(', ');
  if (method === 'OPTIONS') {
    const entry = profile.entries['A-20.options'];
    if (entry === 'undeclared-method') return undefined;
    return { answer: { status: entry.status, headers: entry.allow ? { allow } : {}, body: null } };
  }
  const head = profile.entries['A-20.head'];
  if (head === 'like-get' || !declared.includes('GET')) return undefined;
  const undeclared = profile.entries['A-20.undeclared-method'];
  return {
    refusal: {
      status: head.status,
      code: undeclared.code as EngineError['code'],
      message: `${options.path.slice(0, 200)} does not accept HEAD (the profile in force, A-20).`,
      // A 405 always names what the path allows (RFC 9110 §15.5.6), whatever the undeclared-method entry says.
      ...(undeclared.allow || head.status === 405 ? { headers: { allow } } : {}),
    },
  };
}
