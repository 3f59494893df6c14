/**
 * @module engine/client-findings/requests
 * Rules about the requests themselves: the media type a body is sent as, and sending again a
 * request the service already refused as invalid.
 */
import { isJsonMediaType } from '../request-body.js';
import { RecentMap } from './recent-map.js';
import { type ClientRule, rememberedKeys } from './rule.js';

export const contentTypeNotJson: ClientRule = {
  name: 'content_type_not_json',
  summary: 'sends a request body without Content-Type: application/json',
  create() {
    return (observation) => {
      const withBody = observation.operationId === 'createEvaluation' || observation.operationId === 'verifyReport';
      if (!withBody || observation.method.toUpperCase() !== 'POST') return undefined;
      if (isJsonMediaType(observation.contentType ?? null)) return undefined;
      const sent = observation.contentType === undefined ? 'no Content-Type' : `Content-Type '${observation.contentType.slice(0, 60)}'`;
      return { message: `sent ${observation.operationId} with ${sent}; the service accepts only application/json (415 otherwise)` };
    };
  },
};

/** Refusals that sending the same request again cannot turn into a success. */
const invalidStatuses = new Set([400, 413, 415]);
/** Refused bodies remembered per caller and operation. */
const refusedPerKey = 8;

export const invalidRequestRepeated: ClientRule = {
  name: 'invalid_request_repeated',
  summary: 'sends again a request the service already refused as invalid (400, 413 or 415)',
  create() {
    const refused = new RecentMap<string, string[]>({ maxEntries: rememberedKeys });
    return (observation) => {
      if (observation.operationId === undefined || observation.bodyDigest === undefined) return undefined;
      const key = `${observation.caller}\n${observation.operationId}`;
      const digests = refused.get(key) ?? [];
      const repeated = digests.includes(observation.bodyDigest);
      if (invalidStatuses.has(observation.status) && !observation.forced && !repeated) {
        refused.set(key, [...digests, observation.bodyDigest].slice(-refusedPerKey));
      }
      if (!repeated) return undefined;
      return {
        message: `sent ${observation.operationId} again with a body it had already been refused for (now ${observation.status}${observation.code ? ` ${observation.code}` : ''}); a refused request will be refused again: fix it instead of retrying`,
      };
    };
  },
};
