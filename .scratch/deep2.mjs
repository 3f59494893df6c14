import { parse } from 'yaml';
const n = Number(process.argv[2]); const kind = process.argv[3];
const texts = { flow: '['.repeat(n) + ']'.repeat(n), dash: '- '.repeat(n) + 'x', indent: Array.from({length:n},(_, i)=>' '.repeat(i)+'a:').join('\n')+' 1', qm: '? '.repeat(n)+'x' };
const t = Date.now();
try { parse(texts[kind], { maxAliasCount: 100 }); console.log(n, kind, 'ok', Date.now() - t); } catch (e) { console.log(n, kind, e.constructor.name, String(e.message).slice(0, 50), Date.now() - t); }
