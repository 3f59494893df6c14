import { parse } from 'yaml';
const n = Number(process.argv[2]);
const text = Array.from({length:n},(_, i)=>' '.repeat(i)+'?').join('\n')+' x';
const t = Date.now();
try { parse(text, { maxAliasCount: 100, logLevel: 'silent' }); console.log(n, 'ok', Date.now() - t); } catch (e) { console.log(n, e.constructor.name, String(e.message).slice(0, 50), Date.now() - t); }
const text2 = Array.from({length:n},(_, i)=>' '.repeat(i)+'- ').join('\n')+' x';
const t2 = Date.now();
try { parse(text2, { maxAliasCount: 100, logLevel: 'silent' }); console.log(n, 'ok', Date.now() - t2); } catch (e) { console.log(n, e.constructor.name, String(e.message).slice(0, 50), Date.now() - t2); }
