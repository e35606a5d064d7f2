// throwaway exploration script (not part of the repo; deleted afterwards)
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startGateway } from './test/helpers/start-gateway.js';

const KEY = 'mgw-real-clients-key-0123456789abcdef';
const [upstream, client, prompt] = process.argv.slice(2) as [string, string, string];
mkdirSync('/tmp/explore', { recursive: true });
const scratch = mkdtempSync('/tmp/explore/run-');
const logFile = join(scratch, 'gw.jsonl');
const gw = await startGateway({
  providers: { echo: { type: 'echo', protocols: [upstream] } },
  models: { echo: { provider: 'echo' }, 'claude-*': { provider: 'echo' }, 'gpt-*': { provider: 'echo' } },
  keyGroups: { dev: { keys: [KEY], models: ['*'] } },
} as any, { verbose: true, logFile });
const d = (n: string) => { const p = join(scratch, n); mkdirSync(p, { recursive: true }); return p; };
const base = { PATH: process.env.PATH!, LANG: 'C.UTF-8', NO_COLOR: '1' };
const run = (cmd: string, args: string[], cwd: string, env: Record<string, string>) =>
  new Promise<{ code: number | null; stdout: string; stderr: string }>((res) => {
    const c = spawn(cmd, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '', stderr = '';
    c.stdout.on('data', (s) => (stdout += s)); c.stderr.on('data', (s) => (stderr += s));
    const t = setTimeout(() => c.kill('SIGKILL'), 60000);
    c.on('close', (code) => { clearTimeout(t); res({ code, stdout, stderr }); });
  });
let r;
const t0 = Date.now();
if (client === 'claude') {
  const args = ['-p', prompt, '--output-format', 'json'];
  if (prompt.includes('Bash')) args.push('--allowedTools', 'Bash(echo:*)');
  r = await run('/tmp/real-clients/node_modules/.bin/claude', args, d('proj'), {
    ...base, HOME: d('home'), ANTHROPIC_BASE_URL: gw.url, ANTHROPIC_API_KEY: KEY, DISABLE_TELEMETRY: '1',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1', DISABLE_AUTOUPDATER: '1',
  });
} else {
  const home = d('codex-home');
  writeFileSync(join(home, 'config.toml'), ['model = "gpt-5-codex"', 'model_provider = "model-gateway"', '', '[model_providers.model-gateway]',
    'name = "model-gateway"', `base_url = "${gw.url}/v1"`, 'env_key = "MODEL_GATEWAY_API_KEY"', 'wire_api = "responses"', ''].join('\n'));
  r = await run('/tmp/real-clients/node_modules/.bin/codex', ['exec', '--skip-git-repo-check', prompt], d('proj'), {
    ...base, HOME: d('home'), CODEX_HOME: home, MODEL_GATEWAY_API_KEY: KEY,
  });
}
console.log('=== ms', Date.now() - t0, 'code', r.code);
console.log('=== stdout\n' + r.stdout);
console.log('=== stderr\n' + r.stderr.slice(-3000));
await new Promise((res) => setTimeout(res, 300));
console.log('=== lines\n' + gw.lines().join('\n'));
console.log('=== logfile', logFile);
await gw.close();
