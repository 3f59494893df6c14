/**
 * @module conformance/checks/workflow-checks
 * The check of Arazzo workflows (--workflows): each workflow runs to its end with every success
 * criterion met, or recovered by its actions. The runner decides, step by step, what the
 * workflow's criteria and actions make of an answer and puts the verdict in the step's intent;
 * the contract's own checks judge the same answers independently.
 */
import { fail, pass } from '../failures.js';
import { type Check, forIntent } from './check.js';

export const workflowSuccessCriteria: Check = {
  name: 'workflow_success_criteria',
  description:
    'every step of the --workflows file meets its successCriteria, or its onFailure actions recover it, and each workflow ends passed',
  severity: 'required',
  probes: ['workflows'],
  judge: forIntent(['workflow-step'], (exchange) => (exchange.intent.failure ? fail(exchange.intent.failure) : pass)),
};
