import { formatLine } from '/work/main/dist/log/format.js';
import { exchangeLine } from '/work/main/dist/log/jsonl.js';
import { Chalk } from 'chalk';
const chalk = new Chalk({ level: 0 });
const mk = (i) => ({ id: `req_abcdef123456${i.toString(36).padStart(6,'0')}`, startedAt: Date.now(), start: performance.now(), method: 'POST', path: '/v1/chat/completions', userAgent: 'OpenAI/JS 6.49.0', protocol: 'chat', keyGroup: 'dev', keyId: 'k_1a2b3c4d', model: 'bench-chat', stream: false, provider: 'openai', upstreamModel: 'bench-upstream-model', upstreamProtocol: 'chat', durationMs: 3.456789 + i, status: 200, usage: { inputTokens: 12, outputTokens: 30 } });
const recs = Array.from({ length: 1000 }, (_, i) => mk(i));
let sink = 0;
for (const [name, f] of [['formatLine', (r) => formatLine(r, chalk)], ['exchangeLine', (r) => exchangeLine(r, false)]]) {
  for (let round = 0; round < 5; round++) {
    const t0 = performance.now();
    for (let k = 0; k < 100; k++) for (const r of recs) { const x = f(r); sink += x.length; }
    const t1 = performance.now();
    if (round === 4) console.log(name, ((t1 - t0) * 1000 / 100000).toFixed(2), 'µs');
  }
}
console.log(formatLine(recs[0], chalk)); console.log(exchangeLine(recs[0], false).join(''));
