/**
 * @module conformance/profile/learning/methods
 * The learning step for A-20.options and A-20.head: OPTIONS (not a CORS preflight: no
 * Access-Control-Request-Method) on each contract path, and HEAD on the paths that declare
 * GET (health, and the run's own job when the lifecycle probe made one). The Allow list
 * (A-20.allow) is read from these answers and from every 405 of the run.
 */
import { fillPathTemplate } from '../../../contract/path-template.js';
import { methodQuestions } from '../observe-methods.js';
import type { LearningStep } from './steps.js';

/** Contract paths asked OPTIONS, and GET paths asked HEAD: the step's budget. */
const maxOptions = 4;
const maxHead = 2;

export const methodsStep: LearningStep = {
  label: 'OPTIONS and HEAD',
  budget: maxOptions + maxHead,
  run: async (context, state) => {
    const operations = context.contract.operations.filter((operation) => context.includes(operation));
    const fill = (template: string) => fillPathTemplate(template, () => (state.jobId ? encodeURIComponent(state.jobId) : 'eh-learning'));
    const paths = [...new Set(operations.map((operation) => operation.path))].slice(0, maxOptions);
    for (const template of paths) {
      const path = fill(template);
      await context.send({ method: 'OPTIONS', path }, { kind: 'learning', question: methodQuestions.options, detail: { path } });
    }
    // A templated GET path is asked only about a job the run made: an unknown one would be a 404 either way.
    const getPaths = [...new Set(operations.filter((operation) => operation.method === 'get').map((operation) => operation.path))]
      .filter((template) => !template.includes('{') || state.jobId !== undefined)
      .slice(0, maxHead);
    for (const template of getPaths) {
      const path = fill(template);
      await context.send({ method: 'HEAD', path }, { kind: 'learning', question: methodQuestions.head, detail: { path } });
    }
  },
};
