import { parse } from 'yaml';
for (const n of [1000, 5000, 20000, 100000]) {
  for (const [name, text] of [['flow', '['.repeat(n) + ']'.repeat(n)], ['dash', '- '.repeat(n) + 'x'], ['json-obj', '{"a":'.repeat(n) + '1' + '}'.repeat(n)]]) {
    const t = Date.now();
    try { parse(text, { maxAliasCount: 100 }); console.log(n, name, 'ok', Date.now() - t); } catch (e) { console.log(n, name, e.constructor.name, String(e.message).slice(0, 60), Date.now() - t); }
  }
}
