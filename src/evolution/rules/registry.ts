/**
 * @module evolution/rules/registry
 * Every rule of the diff, in one list, in the order their changes are reported at a site. A
 * rule's name is its stable identifier in every report; docs/evolution.md describes each, and
 * test/evolution checks that it describes them all.
 */
import type { Rule, Site } from '../rule.js';
import * as documentRules from './document-rules.js';
import * as exchangeRules from './exchange-rules.js';
import * as genericRules from './generic-rules.js';
import * as operationRules from './operation-rules.js';
import * as shapeRules from './schema-shape-rules.js';
import * as valueRules from './schema-value-rules.js';

export const rules: readonly Rule[] = [
  // The document and which operations exist.
  documentRules.openapiVersionChanged,
  documentRules.apiVersionChanged,
  documentRules.basePathChanged,
  documentRules.serverChanged,
  documentRules.securitySchemeChanged,
  documentRules.operationAdded,
  documentRules.operationRemoved,
  documentRules.operationMoved,
  documentRules.componentRenamed,
  documentRules.componentAdded,
  documentRules.componentRemoved,
  // One operation.
  operationRules.operationIdChanged,
  operationRules.pathParameterRenamed,
  operationRules.securityChanged,
  operationRules.requiredParameterAdded,
  operationRules.optionalParameterAdded,
  operationRules.parameterRemoved,
  operationRules.requestBodyAdded,
  operationRules.requestBodyRemoved,
  operationRules.responseStatusAdded,
  operationRules.responseStatusRemoved,
  operationRules.responseDefaultAdded,
  operationRules.responseDefaultRemoved,
  // Parameters, bodies, responses, headers.
  exchangeRules.parameterBecameRequired,
  exchangeRules.parameterBecameOptional,
  exchangeRules.parameterSerializationChanged,
  exchangeRules.requestBodyBecameRequired,
  exchangeRules.requestBodyBecameOptional,
  exchangeRules.requestMediaTypeAdded,
  exchangeRules.requestMediaTypeRemoved,
  exchangeRules.responseMediaTypeAdded,
  exchangeRules.responseMediaTypeRemoved,
  exchangeRules.responseHeaderAdded,
  exchangeRules.responseHeaderRemoved,
  exchangeRules.responseHeaderBecameRequired,
  exchangeRules.responseHeaderBecameOptional,
  // Schemas: the values they accept, then their shape.
  valueRules.typeChanged,
  valueRules.enumValueAdded,
  valueRules.enumValueRemoved,
  valueRules.enumAdded,
  valueRules.enumRemoved,
  valueRules.limitTightened,
  valueRules.limitLoosened,
  valueRules.patternAdded,
  valueRules.patternRemoved,
  valueRules.patternChanged,
  valueRules.formatAdded,
  valueRules.formatRemoved,
  valueRules.formatChanged,
  valueRules.defaultValueChanged,
  shapeRules.propertyAdded,
  shapeRules.requiredPropertyAdded,
  shapeRules.propertyRemoved,
  shapeRules.propertyBecameRequired,
  shapeRules.propertyBecameOptional,
  shapeRules.additionalPropertiesClosed,
  shapeRules.additionalPropertiesOpened,
  shapeRules.compositionBranchAdded,
  shapeRules.compositionBranchRemoved,
  shapeRules.compositionChanged,
  shapeRules.schemaKeywordChanged,
  // Everywhere.
  genericRules.wordingChanged,
  genericRules.extensionChanged,
  genericRules.deprecationChanged,
  genericRules.unclassifiedChange,
];

const bySite = new Map<Site, Rule[]>();
for (const rule of rules) for (const site of rule.sites) bySite.set(site, [...(bySite.get(site) ?? []), rule]);

/** The rules that look at `site`, in registry order. */
export function rulesFor(site: Site): readonly Rule[] {
  return bySite.get(site) ?? [];
}
