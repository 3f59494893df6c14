import type { StorybookConfig } from '@storybook/html-vite';

const config: StorybookConfig = {
  framework: '@storybook/html-vite',
  addons: ['msw-storybook-addon'],
  stories: ['../stories/*.stories.ts'],
  // MSW's worker script (public/mockServiceWorker.js, as `npx msw init public` writes it).
  staticDirs: ['../public'],
  core: { disableTelemetry: true },
  async viteFinal(config) {
    // One copy of msw: the addon's worker and the handlers evidence-harness builds must share it.
    return { ...config, resolve: { ...config.resolve, dedupe: ['msw'] } };
  },
};
export default config;
