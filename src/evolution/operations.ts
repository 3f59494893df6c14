/**
 * @module evolution/operations
 * Which operation of OLD is which of NEW. An operation is its method and its path template with
 * the parameter names taken out, since renaming `{jobId}` to `{id}` moves nothing on the wire.
 * An operation found at another method or path under the same operationId has moved.
 */
import { deref } from './deref.js';
import { pointerJoin } from './pointer.js';
import { record, type Side } from './rule.js';
import type { OperationRef } from './types.js';

export const httpMethods = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

export interface IndexedOperation {
  /** `GET /v0/jobs/{}`. */
  readonly key: string;
  readonly ref: OperationRef;
  readonly side: Side;
  /** The path item the operation is in (its parameters apply to the operation too). */
  readonly pathItem: Side;
}

/** `/v0/jobs/{jobId}` → `/v0/jobs/{}`. */
export function pathShape(path: string): string {
  return path.replace(/\{[^}/]*\}/g, '{}');
}

export function indexOperations(document: Record<string, any>): IndexedOperation[] {
  const operations: IndexedOperation[] = [];
  const paths = record(document.paths) ?? {};
  for (const [path, rawItem] of Object.entries(paths)) {
    const pathItem = deref(document, rawItem, pointerJoin('#/paths', path));
    for (const method of httpMethods) {
      const operation = record(pathItem.value[method]);
      if (!operation) continue;
      const name = typeof operation.operationId === 'string' ? operation.operationId : `${method.toUpperCase()} ${path}`;
      operations.push({
        key: `${method.toUpperCase()} ${pathShape(path)}`,
        ref: { operationId: name, method: method.toUpperCase(), path },
        side: { value: operation, pointer: pointerJoin(pathItem.pointer, method) },
        pathItem,
      });
    }
  }
  return operations;
}

export interface OperationMatch {
  readonly pairs: readonly (readonly [IndexedOperation, IndexedOperation])[];
  readonly moved: readonly (readonly [IndexedOperation, IndexedOperation])[];
  readonly removed: readonly IndexedOperation[];
  readonly added: readonly IndexedOperation[];
}

export function matchOperations(oldOps: readonly IndexedOperation[], newOps: readonly IndexedOperation[]): OperationMatch {
  const newByKey = new Map(newOps.map((operation) => [operation.key, operation]));
  const oldKeys = new Set(oldOps.map((operation) => operation.key));
  const pairs: [IndexedOperation, IndexedOperation][] = [];
  const unmatchedOld: IndexedOperation[] = [];
  for (const operation of oldOps) {
    const partner = newByKey.get(operation.key);
    if (partner) pairs.push([operation, partner]);
    else unmatchedOld.push(operation);
  }
  const unmatchedNew = newOps.filter((operation) => !oldKeys.has(operation.key));
  const newById = new Map<string, IndexedOperation>();
  for (const operation of unmatchedNew) if (!newById.has(operation.ref.operationId)) newById.set(operation.ref.operationId, operation);
  const moved: [IndexedOperation, IndexedOperation][] = [];
  const removed: IndexedOperation[] = [];
  for (const operation of unmatchedOld) {
    const partner = newById.get(operation.ref.operationId);
    if (partner) {
      moved.push([operation, partner]);
      newById.delete(operation.ref.operationId);
    } else removed.push(operation);
  }
  const movedNew = new Set(moved.map(([, partner]) => partner));
  return { pairs, moved, removed, added: unmatchedNew.filter((operation) => !movedNew.has(operation)) };
}

/** A parameter's identity: where it goes and its name (a header's case-insensitively, a path parameter's by position). */
export interface IndexedParameter {
  readonly key: string;
  readonly label: string;
  readonly side: Side;
}

/** The operation's parameters: the path item's, overridden by the operation's own of the same name and place. */
export function operationParameters(document: unknown, operation: IndexedOperation): IndexedParameter[] {
  const byKey = new Map<string, IndexedParameter>();
  const templateNames = [...operation.ref.path.matchAll(/\{([^}/]*)\}/g)].map((match) => match[1]);
  const add = (list: unknown, base: string) => {
    if (!Array.isArray(list)) return;
    list.forEach((raw, index) => {
      const side = deref(document, raw, pointerJoin(base, 'parameters', index));
      const place = String(side.value.in);
      const name = String(side.value.name);
      const position = templateNames.indexOf(name);
      const key = place === 'path' && position >= 0 ? `path:#${position}` : `${place}:${place === 'header' ? name.toLowerCase() : name}`;
      byKey.set(key, { key, label: `${place} parameter ${name}`, side });
    });
  };
  add(operation.pathItem.value.parameters, operation.pathItem.pointer);
  add(operation.side.value.parameters, operation.side.pointer);
  return [...byKey.values()];
}
