/** The path a request took when it was not straight: `gpt-a 529×3 → claude-b` (retries, then a fallback). */
import type { ErrorKind } from '../errors.js';
import type { RequestRecord } from './record.js';

/** A failed attempt that got no HTTP answer, in the words the line uses rather than the gateway's error codes. */
const FAILURE_WORDS: Readonly<Record<ErrorKind | 'error', string>> = {
  invalid_request: 'refused',
  authentication: 'refused',
  permission: 'refused',
  not_found: 'not found',
  method_not_allowed: 'refused',
  request_too_large: 'too large',
  rate_limit: 'rate-limited',
  timeout: 'timed out',
  upstream_unavailable: 'unreachable',
  upstream_error: 'failed',
  overloaded: 'overloaded',
  internal: 'failed',
  error: 'failed',
};

const failureWord = (error: string): string => (Object.hasOwn(FAILURE_WORDS, error) ? FAILURE_WORDS[error as ErrorKind] : 'failed');

export function formatRoute(r: RequestRecord): string | undefined {
  if (!r.tries?.length) return undefined;
  const steps: string[] = [];
  let previous = '';
  let count = 0;
  const flush = () => {
    if (count > 0) steps.push(count > 1 ? `${previous}×${count}` : previous);
  };
  for (const t of r.tries) {
    const step = `${t.model} ${t.status ?? failureWord(t.error ?? 'error')}`;
    if (step === previous) count++;
    else {
      flush();
      previous = step;
      count = 1;
    }
  }
  flush();
  // The answer came from the last model tried, unless it failed too.
  const served = r.servedBy ?? r.model;
  const last = r.tries[r.tries.length - 1]!;
  if (r.error === undefined || last.model !== served) steps.push(served ?? '?');
  return steps.join(' → ');
}
