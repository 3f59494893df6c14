/**
 * The option readers every command shares: sizes with their units, and the messages that say
 * which forms they take.
 */
import { expect, it } from 'vitest';
import { formatSize, sizeOption, UsageError } from '../../src/cli/command.js';

const read = (value: string | undefined) => sizeOption({ value, name: 'max-bytes', min: 1, max: 2 ** 40 });

it('reads a size in bytes, decimal units and binary units, in any case', () => {
  expect(read(undefined)).toBeUndefined();
  expect(read('1048576')).toBe(1_048_576);
  expect(read('512KiB')).toBe(512 * 1024);
  expect(read('64MiB')).toBe(64 * 1024 ** 2);
  expect(read('1GiB')).toBe(1024 ** 3);
  expect(read('1gib')).toBe(1024 ** 3);
  expect(read('500kB')).toBe(500_000);
  expect(read('2 MB')).toBe(2_000_000);
  expect(read('10B')).toBe(10);
});

it('refuses what is not a whole size within the bounds, saying which forms it takes', () => {
  for (const value of ['', ' ', '1.5MiB', '-1', '0', '12XB', 'MiB', '1 MiB ', '0x10', '1e6', '2048GiB', '1TiB', '9'.repeat(40)]) {
    expect(() => read(value), value).toThrow(UsageError);
  }
  expect(() => read('0')).toThrow("--max-bytes must be a size from 1 B to 1024GiB, such as 1048576, 512KiB, 64MiB or 1GiB, got '0'.");
});

it('formats sizes in the largest binary unit that divides them', () => {
  expect([formatSize(1), formatSize(1024), formatSize(1536), formatSize(64 * 1024 ** 2), formatSize(1024 ** 4)]).toEqual([
    '1 B',
    '1KiB',
    '1536 B',
    '64MiB',
    '1024GiB',
  ]);
});
