/**
 * @module engine/inspector/css
 * The inspector page's styles (/__mock/ui/inspector.css), served as a file so the page's
 * Content-Security-Policy needs no 'unsafe-inline'.
 */

export const inspectorCss = `
:root { color-scheme: light; --line: #d0d4da; --muted: #555b66; --accent: #0b57d0; --bad: #a50e0e; --good: #146c2e; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.4 system-ui, sans-serif; color: #1b1e23; background: #fff; }
header { padding: 12px 16px; border-bottom: 1px solid var(--line); background: #f6f7f9; }
h1 { font-size: 18px; margin: 0 0 8px; }
h2 { font-size: 16px; margin: 0 0 8px; }
h3 { font-size: 14px; margin: 8px 0 4px; }
main { display: grid; grid-template-columns: 1fr 1fr; gap: 16px; padding: 16px; }
section { min-width: 0; }
section:nth-child(3), section:nth-child(4) { grid-column: 1 / -1; }
.controls { display: flex; flex-wrap: wrap; align-items: center; gap: 6px 8px; margin: 0 0 8px; }
button, select, input { font: inherit; padding: 3px 8px; border: 1px solid #8a9099; border-radius: 4px; background: #fff; color: inherit; }
button { cursor: pointer; background: #eef2fb; }
button:focus-visible, select:focus-visible, input:focus-visible, summary:focus-visible { outline: 3px solid var(--accent); outline-offset: 1px; }
#status { margin: 6px 0 0; min-height: 1.4em; color: var(--muted); }
#status.error { color: var(--bad); }
table { border-collapse: collapse; width: 100%; table-layout: fixed; }
th, td { border-bottom: 1px solid var(--line); padding: 3px 6px; text-align: left; vertical-align: top; }
th { font-weight: 600; background: #f6f7f9; }
td { overflow-wrap: anywhere; }
#findings th:nth-child(1) { width: 26%; } #findings th:nth-child(2) { width: 9%; } #findings th:nth-child(4) { width: 27%; }
#jobs th:nth-child(1) { width: 24%; } #jobs th:nth-child(2) { width: 16%; } #jobs th:nth-child(4) { width: 7%; } #jobs th:nth-child(5) { width: 10%; } #jobs th:nth-child(6) { width: 30%; }
#journal th:nth-child(1) { width: 5%; } #journal th:nth-child(2) { width: 11%; } #journal th:nth-child(3) { width: 7%; } #journal th:nth-child(4) { width: 33%; } #journal th:nth-child(5) { width: 7%; }
.behaviours { margin: 0; padding: 4px 4px 4px 22px; max-height: 260px; overflow: auto; border: 1px solid var(--line); border-radius: 4px; }
.behaviours:focus-visible { outline: 3px solid var(--accent); }
.behaviours code { font-size: 13px; }
.missing { color: var(--bad); }
.covered { color: var(--good); }
.timeline { color: var(--muted); }
.muted { color: var(--muted); }
code.id { font: 12px/1.4 ui-monospace, SFMono-Regular, Menlo, monospace; overflow-wrap: normal; word-break: normal; }
.status-4, .status-5 { color: var(--bad); font-weight: 600; }
[hidden] { display: none !important; }
`;
