import type { Preview } from '@storybook/html-vite';
import { mswLoader } from 'msw-storybook-addon/csf3';

// The addon starts MSW's worker (public/mockServiceWorker.js) and puts each story's
// `parameters.msw` handlers in force, reset between stories.
const preview: Preview = {
  loaders: [mswLoader()],
};
export default preview;
