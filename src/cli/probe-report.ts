/** `check --probe` results as tables: one row per provider, then the capability matrix per model. */
import type { ChalkInstance } from 'chalk';
import { printable } from '../log/terminal-text.js';
import type { Check, ModelProbe, ProviderProbe, Verdict } from './probe.js';
import { formatTable, type Column } from './table.js';

const words = {
  ok: 'ok',
  refused: 'refused',
  failed: 'failed',
  inconclusive: 'unclear',
  skipped: 'skipped',
  undeclared: '—',
} as const satisfies Record<Verdict, string>;

function verdictCell(check: Check, c: ChalkInstance): string {
  const word = words[check.verdict];
  switch (check.verdict) {
    case 'ok':
      return c.green(word);
    case 'refused':
    case 'failed':
      return c.red(word);
    case 'inconclusive':
      return c.yellow(word);
    case 'skipped':
    case 'undeclared':
      return c.gray(word);
  }
}

/** The first thing worth saying about a model's probe: why it was skipped, or what went wrong. */
function modelNote(m: ModelProbe): string {
  const notes: string[] = [];
  if (m.reply.detail) notes.push(m.reply.detail);
  if (m.stream.detail) notes.push(`stream: ${m.stream.detail}`);
  if (m.tools.detail) notes.push(`tools: ${m.tools.detail}`);
  return printable(notes.join('; '));
}

export function probeProvidersTable(probes: readonly ProviderProbe[], c: ChalkInstance): string {
  const reachable = (p: ProviderProbe) =>
    p.reachable.verdict === 'ok' ? c.green('yes') : p.reachable.verdict === 'failed' ? c.red('no') : c.gray('?');
  const credential = (p: ProviderProbe) => {
    switch (p.credential.verdict) {
      case 'ok':
        return c.green(p.provider.apiKey ? 'accepted' : 'none needed');
      case 'refused':
        return c.red('refused');
      default:
        return c.gray(p.credential.detail === 'not needed' ? 'not needed' : '?');
    }
  };
  const note = (p: ProviderProbe) =>
    printable([p.reachable.detail, p.credential.detail === 'not needed' ? undefined : p.credential.detail].filter(Boolean).join('; '));
  const columns: Column<ProviderProbe>[] = [
    // Provider ids and model names from the config, notes quoting the providers' answers: printed escaped.
    { header: 'provider', cell: (p) => printable(p.provider.id) },
    { header: 'reachable', cell: reachable },
    { header: 'credential', cell: credential },
    { header: 'note', cell: note },
  ];
  return formatTable(columns, probes, c);
}

export function capabilityTable(probes: readonly ProviderProbe[], c: ChalkInstance): string {
  const rows = probes.flatMap((p) => p.models);
  const columns: Column<ModelProbe>[] = [
    { header: 'model', cell: (m) => printable(m.model.pattern) },
    { header: 'provider', cell: (m) => printable(m.model.provider) },
    { header: 'sent as', cell: (m) => (m.sentAs === undefined ? c.gray('—') : printable(m.sentAs)) },
    { header: 'via', cell: (m) => m.protocol ?? c.gray('—') },
    { header: 'reply', cell: (m) => verdictCell(m.reply, c) },
    { header: 'stream', cell: (m) => verdictCell(m.stream, c) },
    { header: 'tools', cell: (m) => verdictCell(m.tools, c) },
    { header: 'note', cell: modelNote },
  ];
  return formatTable(columns, rows, c);
}
