/**
 * @module documents/ref-policy
 * Which `$ref`s a document may follow (docs/assumptions.md A-31), the same for every command and
 * library entry. By default: references inside the document (`#/…`), and relative references to
 * files inside the folder of the document the user named (symbolic links resolved). Refused,
 * with the JSON pointer of the `$ref` and the reason: absolute paths, `file:` URLs, `..` that
 * leaves that folder, and any URL, including a relative reference in a document read from a URL
 * (it would be fetched from that URL's server). With `allowRemoteRefs`, http(s) references are
 * followed, through the address guard of fetch-text.ts.
 *
 * The rule is said twice on purpose: `refusalsIn` reads each parsed file's `$ref`s, so a refusal
 * names its pointer before anything is opened; `checkTarget` judges each file or URL the resolver
 * is asked to read, after the library resolved it, so nothing the first reading missed is opened.
 */
import { realpath } from 'node:fs/promises';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import { placePointer, type WalkPlace } from '../contract/document-budget.js';

/** Where a document was read from: a file (its real path) or a URL. */
export type DocumentBase = { readonly kind: 'file'; readonly path: string } | { readonly kind: 'url'; readonly url: string };

export interface RefPolicy {
  /** The real folder of the document the user named; absent when it was named by URL. */
  readonly folder?: string;
  readonly allowRemoteRefs: boolean;
}

/** Advice that ends every refusal of a remote reference. */
export const remoteAdvice = 'remote references are followed only with --allow-remote-refs (library: allowRemoteRefs: true)';

const scheme = /^([a-z][a-z\d+.-]*):/i;

/** Why the `$ref` `ref`, written in the document at `base`, may not be followed; undefined when it may. */
export function refRefusal(ref: string, base: DocumentBase, policy: RefPolicy): string | undefined {
  const target = ref.split('#')[0]!;
  if (target === '') return undefined;
  const protocol = scheme.exec(target)?.[1]?.toLowerCase();
  if (protocol === 'file') return 'a file: URL is never followed; refer to a file by a path relative to the document';
  if (protocol !== undefined && protocol.length > 1) {
    if (protocol !== 'http' && protocol !== 'https') return `a ${protocol}: URL is never followed`;
    return policy.allowRemoteRefs ? undefined : `it is a URL; ${remoteAdvice}`;
  }
  if (base.kind === 'url') {
    return policy.allowRemoteRefs
      ? undefined
      : `the document was read from a URL, so this reference would be fetched from its server; ${remoteAdvice}`;
  }
  if (isAbsolute(target) || /^[a-z]:/i.test(target) || target.startsWith('\\'))
    return 'an absolute path is never followed; refer to a file by a path relative to the document';
  let decoded: string;
  try {
    decoded = decodeURIComponent(target);
  } catch {
    return 'its path is not valid percent-encoding';
  }
  if (policy.folder === undefined) return 'a file reference has no folder to be read from';
  const path = resolve(dirname(base.path), decoded);
  if (!isInside(policy.folder, path)) return `it leads out of ${policy.folder}, the folder of the document named`;
  return undefined;
}

export function isInside(folder: string, path: string): boolean {
  const way = relative(folder, path);
  return way === '' || (!way.startsWith(`..${sep}`) && way !== '..' && !isAbsolute(way));
}

/** A `$ref` the policy refuses: where it is written, what it says and why. */
export interface RefRefusal {
  /** The JSON pointer of the `$ref` in its file. */
  readonly pointer: string;
  readonly ref: string;
  readonly reason: string;
}

/** The first `$ref` of a parsed file that the policy refuses, or undefined. Iterative: the value's depth is already bounded, not trusted. */
export function firstRefusal(value: unknown, base: DocumentBase, policy: RefPolicy): RefRefusal | undefined {
  const stack: { value: unknown; place: WalkPlace | undefined }[] = [{ value, place: undefined }];
  const seen = new Set<object>();
  while (stack.length > 0) {
    const next = stack.pop()!;
    if (next.value === null || typeof next.value !== 'object' || seen.has(next.value)) continue;
    seen.add(next.value);
    const ref = (next.value as Record<string, unknown>).$ref;
    if (typeof ref === 'string') {
      const reason = refRefusal(ref, base, policy);
      if (reason) return { pointer: `${placePointer(next.place)}/$ref`, ref, reason };
    }
    for (const [key, child] of Object.entries(next.value))
      if (child !== null && typeof child === 'object') stack.push({ value: child, place: { parent: next.place, key } });
  }
  return undefined;
}

/** Whether `value` holds a `$ref` to anything but a place in itself (`#…`): only then is there more to read. */
export function hasOutsideRef(value: unknown): boolean {
  const stack: unknown[] = [value];
  const seen = new Set<object>();
  while (stack.length > 0) {
    const next = stack.pop();
    if (next === null || typeof next !== 'object' || seen.has(next)) continue;
    seen.add(next);
    const ref = (next as Record<string, unknown>).$ref;
    if (typeof ref === 'string' && !ref.startsWith('#')) return true;
    for (const child of Object.values(next)) if (child !== null && typeof child === 'object') stack.push(child);
  }
  return false;
}

/**
 * Whether the resolver may read `target` (a file path or URL, as the library resolved it). A
 * file must be, once its links are resolved, inside the folder; a URL needs allowRemoteRefs.
 */
export async function targetRefusal(target: string, policy: RefPolicy): Promise<string | undefined> {
  const protocol = scheme.exec(target)?.[1]?.toLowerCase();
  if (protocol === 'http' || protocol === 'https') return policy.allowRemoteRefs ? undefined : `it is a URL; ${remoteAdvice}`;
  if (protocol !== undefined && protocol.length > 1) return `a ${protocol}: URL is never followed`;
  if (policy.folder === undefined) return 'a file reference has no folder to be read from';
  let real: string;
  try {
    real = await realpath(target);
  } catch {
    // Missing: the reader says so. Its lexical place must still be inside.
    return isInside(policy.folder, resolve(target)) ? undefined : `it leads out of ${policy.folder}, the folder of the document named`;
  }
  return isInside(policy.folder, real)
    ? undefined
    : `it leads out of ${policy.folder} (through a symbolic link), the folder of the document named`;
}
