/** The path a request took when it was not straight: `gpt-a 529×3 → claude-b` (retries, then a fallback). */
import type { RequestRecord } from './record.js';

export function formatRoute(r: RequestRecord): string | undefined {
  if (!r.tries?.length) return undefined;
  const steps: string[] = [];
  let previous = '';
  let count = 0;
  const flush = () => {
    if (count > 0) steps.push(count > 1 ? `${previous}×${count}` : previous);
  };
  for (const t of r.tries) {
    const step = `${t.model} ${t.status ?? t.error ?? 'failed'}`;
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
