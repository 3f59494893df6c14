/**
 * @module proxy/traffic-intent
 * The intent the runner would have sent a client's request with, from the traffic seen so far
 * (traffic-state.ts): shared by the proxy's exchanges and by a cassette read back
 * (`profile --from-har`), so that both read the same traffic the same way.
 */
import type { Intent, ReceivedResponse } from '../conformance/exchange.js';
import type { judgeRequest } from './request-rules.js';
import type { TrafficState } from './traffic-state.js';

/** The intent the runner would have sent this request with, from the traffic seen so far, and how to remember its answer. */
export function trafficIntent(options: {
  judged: ReturnType<typeof judgeRequest>;
  state: TrafficState;
  caller: string;
  /** The request's headers (lower-case names, as node gives them). */
  headers: Readonly<Record<string, string | string[] | undefined>>;
  operationId: string | undefined;
  path: string;
  /** The request body's text, the one `judged.json` was parsed from. */
  requestText: string;
}): { intent: Intent; remember: (response: ReceivedResponse) => void } {
  const { judged, state, caller } = options;
  const nothing = () => undefined;
  if (judged.violations.length > 0)
    return {
      intent: { kind: 'observed-invalid', description: judged.violations.map((violation) => violation.check).join(', ') },
      remember: nothing,
    };
  if (options.operationId === 'createEvaluation') {
    const header = options.headers['idempotency-key'];
    const key = Array.isArray(header) ? header.join(', ') : (header ?? '');
    const { intent, body } = state.createIntent({ caller, key, body: judged.json, text: options.requestText });
    return {
      intent,
      remember: (response) => state.createAnswered({ caller, key, body, intent, status: response.status, job: response.json }),
    };
  }
  if (options.operationId === 'getJob') {
    const jobId = safeDecode(options.path.split('/').pop() ?? '');
    return {
      intent: state.readIntent({ caller, jobId }),
      remember: (response) => state.readAnswered({ jobId, status: response.status, job: response.json }),
    };
  }
  return {
    intent: { kind: 'positive', source: 'observed', description: `${options.operationId ?? 'request'} through the proxy` },
    remember: nothing,
  };
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
