/**
 * @module conformance/profile/hold-methods
 * `--profile` for format 2's method, strictness and order entries: how what an answer shows
 * (observe-methods.ts) departs from the declared value. A pair of problems is judged only when
 * its answer is one of the two problems' declared answers: an answer that is neither's departs
 * from a problem's own entry, which its own check judges.
 */
import { judgedOrder } from '../../profile/engine-strictness.js';
import type { ServerProfile } from '../../profile/profile.js';
import { flowYaml } from '../../profile/write.js';
import { winnerOf } from './learn-methods.js';
import type { Observation } from './observe.js';

type Shown = Record<string, unknown>;

/** A strictness answer as the entry would write it. */
function acceptedOr(value: Shown): unknown {
  return value.accepted ? 'accepted' : { status: value.status, code: value.code };
}

function differs(seen: unknown, declared: unknown): string | undefined {
  return JSON.stringify(seen) === JSON.stringify(declared) ? undefined : `answered as ${flowYaml(seen)}, not ${flowYaml(declared)}`;
}

/** How `observation` departs from what `profile` declares for its entry, or undefined. */
export function methodsDeparture(observation: Observation, profile: ServerProfile): string | undefined {
  const value = observation.value as Shown;
  const { entries } = profile;
  switch (observation.entry) {
    case 'A-20.options':
      return differs(value.refused ? 'undeclared-method' : { status: value.status, allow: value.allow }, entries['A-20.options']);
    case 'A-20.head':
      return differs(value.likeGet ? 'like-get' : { status: value.status }, entries['A-20.head']);
    case 'A-21.charset':
      return differs(acceptedOr(value), entries['A-21.charset']);
    case 'A-16.non-ascii-key':
      return differs(acceptedOr(value), entries['A-16.non-ascii-key']);
    case 'A-20.allow': {
      const { adds } = entries['A-20.allow'];
      const wrong = (['head', 'options'] as const).filter(
        (part) => value[part] !== undefined && value[part] !== adds.includes(part === 'head' ? 'HEAD' : 'OPTIONS'),
      );
      return wrong.length === 0
        ? undefined
        : `${wrong.map((part) => `${part.toUpperCase()} ${value[part] ? 'listed' : 'not listed'}`).join(', ')}; declared adds ${flowYaml(adds)}`;
    }
    case 'A-21.duplicate-members': {
      const declared = entries['A-21.duplicate-members'];
      const accepts =
        declared === 'last-wins' ? value.variant === 'last-valid' : declared === 'first-wins' ? value.variant === 'first-valid' : false;
      if (accepts)
        return value.accepted
          ? undefined
          : `refused (${String(value.status)} ${String(value.code)}) where ${flowYaml(declared)} accepts it`;
      if (value.accepted) return `accepted where ${flowYaml(declared)} refuses it`;
      return typeof declared === 'object' ? differs({ status: value.status, code: value.code }, declared) : undefined;
    }
    case 'A-7.precedence': {
      const told = winnerOf(value, entries);
      if ('why' in told) return undefined;
      const order = judgedOrder(profile, typeof value.operation === 'string' ? value.operation : 'createEvaluation');
      const expected = order.indexOf(told.winner) < order.indexOf(told.loser) ? told.winner : told.loser;
      const on = value.operation === 'verifyReport' ? ' on verifyReport' : '';
      return expected === told.winner
        ? undefined
        : `${told.winner} judged before ${told.loser}${on}, where the order puts ${expected} first`;
    }
    default:
      return undefined;
  }
}
