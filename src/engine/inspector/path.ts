/**
 * @module engine/inspector/path
 * Where the inspector's files are served under /__mock: a module of its own so the control API
 * can test a path without loading the page's text (engine/inspector, loaded when asked for).
 */
export const inspectorPath = '/ui';
