/**
 * @module engine/client-findings/registry
 * Every client rule, in one list: its names are the findings' `rule` values and the sections of
 * docs/client-findings.md.
 */

import { pollTooFast, pollWithoutBackoff } from './polling.js';
import { contentTypeNotJson, invalidRequestRepeated } from './requests.js';
import { keyReusedWithOtherBody, newKeyAfterFailure, retryAfterIgnored } from './retries.js';
import type { ClientRule } from './rule.js';

export const clientRules: readonly ClientRule[] = [
  pollTooFast,
  pollWithoutBackoff,
  retryAfterIgnored,
  newKeyAfterFailure,
  keyReusedWithOtherBody,
  contentTypeNotJson,
  invalidRequestRepeated,
];
