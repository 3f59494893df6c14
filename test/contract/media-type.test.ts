/**
 * The one media-type essence (src/contract/media-type.ts): type/subtype lower-cased without
 * parameters, or null when there is none to read.
 */
import { expect, it } from 'vitest';
import { essence } from '../../src/contract/media-type.js';

it.each([
  ['application/json', 'application/json'],
  ['Application/JSON', 'application/json'],
  ['application/json; charset=utf-8', 'application/json'],
  ['application/json ; charset=utf-8', 'application/json'],
  ['application/json;charset=UTF-8;x=y', 'application/json'],
  [' \tapplication/json\t ', 'application/json'],
  ['application/problem+json', 'application/problem+json'],
  ['application/vnd.api.v1+json', 'application/vnd.api.v1+json'],
  ['text/plain;', 'text/plain'],
] as const)('reads %j as %j', (value, expected) => {
  expect(essence(value)).toBe(expected);
});

it.each([
  ['absent (null)', null],
  ['absent (undefined)', undefined],
  ['empty', ''],
  ['parameters only', '; charset=utf-8'],
  ['no subtype', 'json'],
  ['an empty subtype', 'application/'],
  ['an empty type', '/json'],
  ['a space inside', 'application /json'],
  ['words after it', 'application/json garbage'],
  ['a list of two', 'application/json, text/plain'],
  ['three parts', 'application/json/x'],
  ['a non-ASCII letter', 'applicatión/json'],
] as const)('reads %s as no media type', (_, value) => {
  expect(essence(value)).toBeNull();
});
