/**
 * @module evolution/compare
 * The diff engine: walks OLD and NEW side by side — the document, each operation both have,
 * its parameters, request body, responses, headers, media types and schemas — and runs the
 * registry's rules at each pair of nodes. `$ref`s are followed on both sides, so what is
 * compared is what a reference resolves to; a pair of schemas already being compared further up
 * (a recursive schema) is taken as equal there, which ends the walk. Isomorphic: it takes two
 * parsed documents and returns a report.
 */
import { adviceFor, breaksOf } from './classify.js';
import { deref } from './deref.js';
import { type DiffLimits, defaultDiffLimits, StepBudget } from './limits.js';
import { type IndexedOperation, indexOperations, matchOperations, operationParameters } from './operations.js';
import { pointerJoin } from './pointer.js';
import { record, type Side, type SiteContext } from './rule.js';
import { rulesFor } from './rules/registry.js';
import { compositionKeywords, pairBranches } from './rules/schema-shape-rules.js';
import type { Change, DiffReport, DocumentInfo } from './types.js';

export interface DiffSource {
  /** The parsed document, bundled (every $ref local). */
  readonly document: Record<string, any>;
  /** Where it was read from, for the report. */
  readonly source: string;
}

export interface DiffInput {
  readonly old: DiffSource;
  readonly new: DiffSource;
  readonly limits?: Partial<DiffLimits>;
}

/** Every change between two documents, each classified; throws DiffLimitError past a bound. */
export function diffDocuments(input: DiffInput): DiffReport {
  const limits = { ...defaultDiffLimits, ...input.limits };
  const comparison = new Comparison({ old: input.old.document, new: input.new.document, limits });
  comparison.walkDocument();
  const changes = comparison.changes;
  return {
    old: documentInfo(input.old),
    new: documentInfo(input.new),
    changes,
    truncated: comparison.dropped > 0,
    counts: {
      total: changes.length + comparison.dropped,
      breaksClients: changes.filter((change) => change.breaks.clients).length,
      breaksServers: changes.filter((change) => change.breaks.servers).length,
      compatible: changes.filter((change) => !change.breaks.clients && !change.breaks.servers).length,
    },
  };
}

function documentInfo(source: DiffSource): DocumentInfo {
  const info = record(source.document.info) ?? {};
  return { source: source.source, title: String(info.title ?? ''), version: String(info.version ?? '') };
}

/** A context without its site, sides and field: what a walk passes down. */
type Frame = Omit<SiteContext, 'site' | 'old' | 'new' | 'field'> & { readonly field: string };

class Comparison {
  readonly changes: Change[] = [];
  dropped = 0;
  private readonly budget: StepBudget;
  private readonly documents: { readonly old: Record<string, any>; readonly new: Record<string, any> };
  private readonly open = new Set<string>();
  private readonly ids = new WeakMap<object, number>();
  private nextId = 0;

  constructor(private readonly options: { old: Record<string, any>; new: Record<string, any>; limits: DiffLimits }) {
    this.budget = new StepBudget(options.limits);
    this.documents = { old: options.old, new: options.new };
    this.budget.payForValues(options.old, 'OLD');
    this.budget.payForValues(options.new, 'NEW');
  }

  walkDocument(): void {
    const frame: Frame = {
      subject: { kind: 'document' },
      where: 'the document',
      field: '',
      documents: this.documents,
      budget: this.budget,
    };
    this.visit({
      ...frame,
      site: 'document',
      old: { value: this.documents.old, pointer: '#' },
      new: { value: this.documents.new, pointer: '#' },
    });
    const match = matchOperations(indexOperations(this.documents.old), indexOperations(this.documents.new));
    for (const [before, after] of [...match.pairs, ...match.moved]) this.walkOperation(before, after);
  }

  private walkOperation(before: IndexedOperation, after: IndexedOperation): void {
    this.budget.step(after.side.pointer);
    const where = `${before.ref.operationId} (${before.ref.method} ${before.ref.path})`;
    const frame: Frame = {
      operation: before.ref,
      subject: { kind: 'operation' },
      where,
      field: '',
      documents: this.documents,
      budget: this.budget,
    };
    this.visit({ ...frame, site: 'operation', old: before.side, new: after.side, operations: { old: before, new: after } });
    const newParameters = new Map(operationParameters(this.documents.new, after).map((parameter) => [parameter.key, parameter]));
    for (const parameter of operationParameters(this.documents.old, before)) {
      const partner = newParameters.get(parameter.key);
      if (!partner) continue;
      const name = String(partner.side.value.name);
      this.walkPart(
        { ...frame, subject: { kind: 'request' }, where: `${where} ${partner.label}`, direction: 'request', field: '' },
        'parameter',
        parameter.side,
        partner.side,
        name,
      );
    }
    if (record(before.side.value.requestBody) && record(after.side.value.requestBody)) {
      const sides = this.sides(before.side.value.requestBody, after.side.value.requestBody, before.side, after.side, 'requestBody');
      const body: Frame = { ...frame, subject: { kind: 'request' }, where: `${where} request body`, direction: 'request' };
      this.visit({ ...body, site: 'request-body', ...sides });
      this.walkContent(body, sides.old, sides.new);
    }
    const responsesBefore = record(before.side.value.responses) ?? {};
    const responsesAfter = record(after.side.value.responses) ?? {};
    for (const status of Object.keys(responsesBefore)) {
      if (!Object.hasOwn(responsesAfter, status)) continue;
      const base = { old: pointerJoin(before.side.pointer, 'responses'), new: pointerJoin(after.side.pointer, 'responses') };
      const sides = {
        old: deref(this.documents.old, responsesBefore[status], pointerJoin(base.old, status)),
        new: deref(this.documents.new, responsesAfter[status], pointerJoin(base.new, status)),
      };
      this.walkResponse(
        { ...frame, where: `${where} response ${status}`, direction: 'response', subject: { kind: 'status', status } },
        sides,
        status,
      );
    }
  }

  private walkResponse(frame: Frame, sides: { old: Side; new: Side }, status: string): void {
    this.visit({ ...frame, site: 'response', ...sides });
    this.walkContent({ ...frame, subject: { kind: 'response-body', status, field: '' } }, sides.old, sides.new);
    const before = record(sides.old.value.headers) ?? {};
    const after = new Map(Object.keys(record(sides.new.value.headers) ?? {}).map((name) => [name.toLowerCase(), name]));
    for (const name of Object.keys(before)) {
      const partner = after.get(name.toLowerCase());
      if (partner === undefined) continue;
      const header = {
        old: deref(this.documents.old, before[name], pointerJoin(sides.old.pointer, 'headers', name)),
        new: deref(this.documents.new, sides.new.value.headers[partner], pointerJoin(sides.new.pointer, 'headers', partner)),
      };
      const subject = { kind: 'response-header' as const, status, header: name.toLowerCase() };
      this.walkPart({ ...frame, subject, where: `${frame.where} header ${partner}` }, 'header', header.old, header.new, '');
    }
  }

  /** A parameter or header: its own rules, then its schema. */
  private walkPart(frame: Frame, site: 'parameter' | 'header', before: Side, after: Side, field: string): void {
    this.visit({ ...frame, site, old: before, new: after });
    if (before.value.schema !== undefined || after.value.schema !== undefined)
      this.walkSchema({ ...frame, field }, this.schemaSides(before, after), 0);
  }

  /** The media types both sides of a body have, each with its schema. */
  private walkContent(frame: Frame, before: Side, after: Side): void {
    const oldContent = record(before.value.content) ?? {};
    const newContent = record(after.value.content) ?? {};
    const newByName = new Map(Object.keys(newContent).map((name) => [name.toLowerCase(), name]));
    for (const name of Object.keys(oldContent)) {
      const partner = newByName.get(name.toLowerCase());
      if (partner === undefined) continue;
      const media = {
        old: deref(this.documents.old, oldContent[name], pointerJoin(before.pointer, 'content', name)),
        new: deref(this.documents.new, newContent[partner], pointerJoin(after.pointer, 'content', partner)),
      };
      const inner: Frame = { ...frame, where: `${frame.where} (${partner})` };
      this.visit({ ...inner, site: 'media-type', ...media });
      this.walkSchema(inner, this.schemaSides(media.old, media.new), 0);
    }
  }

  private schemaSides(before: Side, after: Side): { old: Side; new: Side } {
    return this.sides(before.value.schema ?? {}, after.value.schema ?? {}, before, after, 'schema');
  }

  /** Two children, one of each side, followed through their $refs. */
  private sides(oldValue: unknown, newValue: unknown, before: Side, after: Side, ...segments: (string | number)[]) {
    return {
      old: this.child(this.documents.old, oldValue, before, segments),
      new: this.child(this.documents.new, newValue, after, segments),
    };
  }

  private child(document: Record<string, any>, value: unknown, parent: Side, segments: (string | number)[]): Side {
    const side = deref(document, value, pointerJoin(parent.pointer, ...segments));
    if (side.defined !== undefined || parent.defined === undefined) return side;
    return { ...side, defined: pointerJoin(parent.defined, ...segments) };
  }

  private walkSchema(frame: Frame, sides: { old: Side; new: Side }, depth: number): void {
    this.budget.step(sides.new.pointer);
    this.budget.depth(depth, sides.new.pointer);
    // A pair already open further up is a recursive schema meeting itself: equal there by assumption.
    const key = `${sides.old.defined ?? this.idOf(sides.old.value)}|${sides.new.defined ?? this.idOf(sides.new.value)}`;
    if (this.open.has(key)) return;
    this.open.add(key);
    try {
      const subject = frame.subject.kind === 'response-body' ? { ...frame.subject, field: frame.field } : frame.subject;
      const here: Frame = { ...frame, subject };
      this.visit({ ...here, site: 'schema', ...sides });
      this.walkSchemaChildren(here, sides, depth);
    } finally {
      this.open.delete(key);
    }
  }

  private walkSchemaChildren(frame: Frame, { old: before, new: after }: { old: Side; new: Side }, depth: number): void {
    const field = (suffix: string) => (frame.field ? `${frame.field}${suffix.startsWith('[') ? '' : '.'}${suffix}` : suffix);
    const oldProperties = record(before.value.properties) ?? {};
    const newProperties = record(after.value.properties) ?? {};
    for (const name of Object.keys(oldProperties)) {
      if (!Object.hasOwn(newProperties, name)) continue;
      const sides = this.sides(oldProperties[name], newProperties[name], before, after, 'properties', name);
      this.walkSchema({ ...frame, field: field(name) }, sides, depth + 1);
    }
    if (record(before.value.items) || record(after.value.items)) {
      this.walkSchema(
        { ...frame, field: field('[]') },
        this.sides(before.value.items ?? {}, after.value.items ?? {}, before, after, 'items'),
        depth + 1,
      );
    }
    if (Array.isArray(before.value.prefixItems) && Array.isArray(after.value.prefixItems)) {
      const count = Math.min(before.value.prefixItems.length, after.value.prefixItems.length);
      for (let index = 0; index < count; index += 1) {
        const sides = this.sides(before.value.prefixItems[index], after.value.prefixItems[index], before, after, 'prefixItems', index);
        this.walkSchema({ ...frame, field: field(`[${index}]`) }, sides, depth + 1);
      }
    }
    if (record(before.value.additionalProperties) && record(after.value.additionalProperties)) {
      const sides = this.sides(before.value.additionalProperties, after.value.additionalProperties, before, after, 'additionalProperties');
      this.walkSchema({ ...frame, field: field('*') }, sides, depth + 1);
    }
    for (const keyword of compositionKeywords) {
      if (!Array.isArray(before.value[keyword]) || !Array.isArray(after.value[keyword])) continue;
      const context = { ...frame, site: 'schema' as const, old: before, new: after };
      const paired = pairBranches(context, keyword);
      for (const [a, b] of paired.pairs) {
        this.walkSchema(
          frame,
          {
            old: this.child(this.documents.old, paired.before[a], before, [keyword, a]),
            new: this.child(this.documents.new, paired.after[b], after, [keyword, b]),
          },
          depth + 1,
        );
      }
    }
  }

  private idOf(value: object): string {
    let id = this.ids.get(value);
    if (id === undefined) {
      id = this.nextId;
      this.nextId += 1;
      this.ids.set(value, id);
    }
    return `@${id}`;
  }

  /** Runs every rule of the context's site and records what they find. */
  private visit(context: SiteContext): void {
    this.budget.step(context.new.pointer);
    for (const rule of rulesFor(context.site)) {
      for (const finding of rule.check(context)) {
        if (this.changes.length >= this.options.limits.maxChanges) {
          this.dropped += 1;
          continue;
        }
        const side = finding.at === 'old' ? context.old : context.new;
        const segments = finding.segments ?? [];
        const pointer = pointerJoin(side.pointer, ...segments);
        const breaks = finding.breaks ?? breaksOf(finding.effect ?? 'none', context.direction ?? 'request');
        const where = finding.where ?? context.where;
        const field = finding.where === undefined && context.field ? `, \`${context.field}\`` : '';
        const operation = finding.operation ?? context.operation;
        this.changes.push({
          rule: rule.name,
          location: { document: finding.at ?? 'new', pointer },
          ...(side.defined !== undefined && side.defined !== side.pointer ? { definedAt: pointerJoin(side.defined, ...segments) } : {}),
          ...(operation ? { operation } : {}),
          subject: finding.subject ?? context.subject,
          message: `${where}${field}: ${finding.fact}. ${finding.advice ?? adviceFor(breaks, context.direction)}`,
          breaks,
        });
      }
    }
  }
}
