/**
 * A request's RequestRecord and its captured exchange have one writer, src/pipeline/events.ts: the rest of
 * the pipeline tells it what happened, and the log, the inspector and the observers only read. This scans
 * every source file for the ways the record and the exchange are written and names each other file that
 * does. The record's and the exchange's own modules (which define them) and tests (which build them) may, and
 * the inspector's rows (which build an ended request's record again from its columns, a copy only a page reads).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const ALLOWED = new Set(['src/pipeline/events.ts', 'src/log/record.ts', 'src/log/exchange.ts', 'src/inspector/rows.ts']);

/** An assignment (`=`, `??=`, `||=`, `+=`, …) that is not a comparison. */
const ASSIGN = String.raw`\s*(?:\?\?|\|\||&&|[-+*/])?=(?!=)`;

/** The ways the record or the exchange gets written, each with what it is. */
const WRITES: readonly (readonly [RegExp, string])[] = [
  [new RegExp(String.raw`\brecord\??\.\w+${ASSIGN}`), 'assigns a RequestRecord field'],
  [new RegExp(String.raw`\bexchange!?\??\.\w+(?:\.\w+)?${ASSIGN}`), 'assigns an exchange field'],
  [new RegExp(String.raw`\battempt!?\??\.\w+(?:\.\w+)?${ASSIGN}`), 'assigns an upstream attempt field'],
  [/\.(?:responseIsUpstream|parsedJson|ttfbMs|servedBy|tries|upstreamProtocol|keyGroup|keyId|keyName)\s*(?:\?\?|\|\|)?=(?!=)/, 'assigns a field only the record and the exchange have'],
  [/\.attempts\.push\(|\.tries\)?\.push\(|\(\s*\w+\.tries\s*\?\?=/, 'adds an attempt or a try'],
  [/(?<![\w.])(?:capture|newExchange|newRecord)\(/, 'captures into or makes a record or an exchange'],
];

interface Write {
  readonly line: number;
  readonly what: string;
}

function writesIn(text: string): Write[] {
  const found: Write[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (/^\s*(?:\*|\/\/|\/\*)/.test(line)) continue; // comments may name what they describe
    for (const [pattern, what] of WRITES) if (pattern.test(line)) found.push({ line: i + 1, what });
  }
  return found;
}

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...sourceFiles(path));
    else if (/\.tsx?$/.test(entry.name) && !/\.test(?:-d)?\.tsx?$/.test(entry.name)) out.push(path);
  }
  return out;
}

describe('the record and the exchange are written only in pipeline/events.ts', () => {
  it.each([
    ['record.model = info.model;'],
    ['  if (res.headersSent) record.status ??= res.statusCode;'],
    ['(record.tries ??= []).push(t);'],
    ['record.exchange!.responseIsUpstream = true;'],
    ['ctx.record.usage = spec.usage(json);'],
    ['if (exchange) exchange.request.parsedJson = true;'],
    ['x.responseStatus = status; exchange.responseHeaders = headers;'],
    ['if (attempt) attempt.error ??= err.message;'],
    ['attempt.durationMs = t - attempt.t;'],
    ['exchange.attempts.push(attempt);'],
    ['for (const c of chunks) capture(record.exchange!, record.exchange!.response, c.t, c.data);'],
    ['const record = newRecord(id(), Date.now(), performance.now(), method, path);'],
    ['r.ttfbMs = performance.now() - r.start;'],
  ])('finds the write in %j', (line) => {
    expect(writesIn(line)).not.toEqual([]);
  });

  it.each([
    ['if (record.ttfbMs === undefined) return;'],
    ['const usage = record.usage;'],
    ['answerFailed(record, err.message);'],
    ['const attempt = lastAttempt(record); if (attempt !== undefined) return attempt.status;'],
    [' * record.model = the requested model (a comment)'],
    ['route.capture(x);'],
  ])('reads, calls and comments are not writes: %j', (line) => {
    expect(writesIn(line)).toEqual([]);
  });

  it('no other source file writes them', () => {
    const offenders: string[] = [];
    for (const path of sourceFiles(join(ROOT, 'src'))) {
      const file = relative(ROOT, path).split('\\').join('/');
      if (ALLOWED.has(file)) continue;
      for (const w of writesIn(readFileSync(path, 'utf8'))) offenders.push(`${file}:${w.line} ${w.what}`);
    }
    expect(offenders).toEqual([]);
  });

  it('events.ts itself writes them, so the scan can see a write', () => {
    expect(writesIn(readFileSync(join(ROOT, 'src/pipeline/events.ts'), 'utf8')).length).toBeGreaterThan(10);
  });
});
