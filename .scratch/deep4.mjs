import { parse } from 'yaml';
const n = Number(process.argv[2]);
for (const [name, text] of [['dash-lines', Array.from({length:n},(_, i)=>' '.repeat(i)+'- ').join('\n')+' x'], ['map', Array.from({length:n},(_, i)=>' '.repeat(i)+'a:').join('\n')+' 1'], ['dash32', ('- '.repeat(32)+'x\n').repeat(1)]]) {
const t = Date.now();
try { parse(text, { maxAliasCount: 100, logLevel: 'silent' }); console.log(n, name, 'ok', Date.now() - t); } catch (e) { console.log(n, name, e.constructor.name, String(e.message).slice(0, 50), Date.now() - t); }
}
