/** The inspector's data API, relative to the page (/_inspector/). */
import type { ExchangeDetail, ExchangeList, PushEvent } from '../common/types.js';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

async function getJson<T>(path: string): Promise<T> {
  const res = await fetch(path, { credentials: 'same-origin', cache: 'no-store' });
  if (!res.ok) {
    const body = await res.text();
    let message = body;
    try {
      message = (JSON.parse(body) as { error?: string }).error ?? body;
    } catch {
      // Plain text.
    }
    throw new ApiError(res.status, message.trim() || `HTTP ${res.status}`);
  }
  return (await res.json()) as T;
}

export const fetchList = () => getJson<ExchangeList>('api/exchanges');
export const fetchDetail = (id: string) => getJson<ExchangeDetail>(`api/exchanges/${encodeURIComponent(id)}`);

export const searchBodies = (q: string) => getJson<{ ids: string[] }>(`api/search?q=${encodeURIComponent(q)}`);

export type Connection = 'connecting' | 'live' | 'offline';

/** Listens for pushed rows; the browser reconnects by itself after a drop, and says hello again. */
export function connectEvents(onEvent: (e: PushEvent) => void, onConnection: (c: Connection) => void): () => void {
  const source = new EventSource('api/events');
  const handle = (e: MessageEvent<string>) => onEvent(JSON.parse(e.data) as PushEvent);
  source.addEventListener('hello', (e) => {
    onConnection('live');
    handle(e);
  });
  source.addEventListener('exchange', handle);
  source.addEventListener('error', () => onConnection(source.readyState === EventSource.CLOSED ? 'offline' : 'connecting'));
  return () => source.close();
}
