/** SSE encoding. Multi-line data is split into several `data:` lines, as the spec requires. */
export function formatSse(data: string, event?: string): string {
  if (event !== undefined && /[\r\n]/.test(event)) throw new Error('SSE event names cannot contain line breaks');
  const head = event === undefined ? '' : `event: ${event}\n`;
  const body = data.includes('\n') ? data.split('\n').map((l) => `data: ${l}`).join('\n') : `data: ${data}`;
  return `${head}${body}\n\n`;
}
