/** The suite's `test`: Playwright Test with one mock session per test. */
import { test as base } from '@playwright/test';
import { mockSessionFixtures } from '../../src/playwright/index.js';

export const test = base.extend(
  mockSessionFixtures({
    mockUrl: () => {
      const url = process.env.EVIDENCE_MOCK_URL;
      if (!url) throw new Error('EVIDENCE_MOCK_URL is not set: run through playwright.config.ts, whose global setup starts the mock');
      return url;
    },
  }),
);
export { expect } from '@playwright/test';
