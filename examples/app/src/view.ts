/**
 * @module app/view
 * Builds the page's elements from the flows' values. Text goes in through textContent only:
 * messages come from a server and must never be read as HTML.
 */
import type { VerificationResult } from 'evidence-harness/client';
import type { ShownFailure } from './describe-failure.js';
import type { ErrorDemo, JobStep } from './flows.js';

interface ElementOptions {
  readonly text?: string;
  readonly className?: string;
  readonly data?: Readonly<Record<string, string>>;
}

export function element<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  options: ElementOptions = {},
  ...children: Node[]
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (options.text !== undefined) node.textContent = options.text;
  if (options.className) node.className = options.className;
  for (const [name, value] of Object.entries(options.data ?? {})) node.dataset[name] = value;
  node.append(...children);
  return node;
}

/** Finds an element the page's HTML must have; a missing one is a bug in index.html. */
export function required<T extends HTMLElement>(id: string): T {
  const found = document.getElementById(id);
  if (!found) throw new Error(`index.html has no element #${id}`);
  return found as T;
}

export function stepItem(step: JobStep): HTMLLIElement {
  const label = step.evaluation ? `${step.status} · ${step.evaluation}` : step.status;
  const when = step.seenAt === 'created' ? 'on creation (202)' : `poll ${step.seenAt}`;
  return element('li', { data: { status: step.status } }, element('strong', { text: label }), document.createTextNode(` — ${when}`));
}

export function failureCard(failure: ShownFailure): HTMLElement {
  const rows: Node[] = [element('p', { className: 'headline', text: failure.headline })];
  if (failure.code)
    rows.push(element('p', {}, element('span', { text: 'code ' }), element('code', { className: 'code', text: failure.code })));
  rows.push(element('p', { className: 'message', text: failure.message }));
  rows.push(element('p', { className: 'advice', text: failure.advice }));
  return element('div', { className: 'failure', data: { status: String(failure.status) } }, ...rows);
}

export function verificationCard(result: VerificationResult, tampered: boolean): HTMLElement {
  const reasons = result.reasons.length
    ? element('ul', { className: 'reasons' }, ...result.reasons.map((reason) => element('li', { text: reason })))
    : element('p', { className: 'reasons', text: 'No reasons given.' });
  return element(
    'div',
    { className: `verification ${result.integrity === 'VALID' ? 'good' : 'bad'}`, data: { integrity: result.integrity } },
    element('p', {
      className: 'headline',
      text: `${tampered ? 'Tampered' : 'Genuine'} artifact: integrity ${result.integrity}, evaluation ${result.evaluation}`,
    }),
    reasons,
  );
}

export function errorDemoCard(demo: ErrorDemo, onRun: () => void): { card: HTMLElement; output: HTMLElement; button: HTMLButtonElement } {
  const button = element('button', { text: `Provoke ${demo.status}` });
  button.type = 'button';
  button.addEventListener('click', onRun);
  const output = element('div', { className: 'output', text: 'Not run yet.' });
  const card = element(
    'article',
    { className: 'error-card', data: { status: String(demo.status) } },
    element('h3', { text: `${demo.status} — ${demo.title}` }),
    element('p', { className: 'sends', text: `Sends ${demo.sends}.` }),
    button,
    output,
  );
  card.id = `error-${demo.status}`;
  return { card, output, button };
}
