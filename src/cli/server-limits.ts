/**
 * The `server` section's limits as `check` lists them: every setting with the value `serve`
 * will use, defaults in grey, so a team lead sees what protects the gateway without reading
 * the schema.
 */
import type { ChalkInstance } from 'chalk';
import { assertNever } from '../assert-never.js';
import { DEFAULT_MAX_BODY_BYTES, DEFAULT_SERVER_LIMITS } from '../config/schema.js';
import type { ServerConfig } from '../config/types.js';
import { defaultMaxConnections } from '../server/connections.js';
import { formatTable, type Column } from './table.js';

type Unit = 'bytes' | 'ms' | 'count' | 'per minute';

interface Limit {
  readonly name: keyof ServerConfig;
  readonly unit: Unit;
  readonly default: number | undefined;
  /** The value `serve` works out at start when the setting is unset. */
  readonly derived?: () => number;
}

const LIMITS: readonly Limit[] = [
  { name: 'maxBodyBytes', unit: 'bytes', default: DEFAULT_MAX_BODY_BYTES },
  { name: 'maxResponseBytes', unit: 'bytes', default: DEFAULT_SERVER_LIMITS.maxResponseBytes },
  { name: 'maxBufferedBytes', unit: 'bytes', default: DEFAULT_SERVER_LIMITS.maxBufferedBytes },
  { name: 'maxConcurrentRequests', unit: 'count', default: DEFAULT_SERVER_LIMITS.maxConcurrentRequests },
  { name: 'maxConnections', unit: 'count', default: undefined, derived: () => defaultMaxConnections() },
  { name: 'headersTimeoutMs', unit: 'ms', default: DEFAULT_SERVER_LIMITS.headersTimeoutMs },
  { name: 'requestTimeoutMs', unit: 'ms', default: DEFAULT_SERVER_LIMITS.requestTimeoutMs },
  { name: 'keepAliveTimeoutMs', unit: 'ms', default: DEFAULT_SERVER_LIMITS.keepAliveTimeoutMs },
  { name: 'authFailuresPerMinute', unit: 'per minute', default: DEFAULT_SERVER_LIMITS.authFailuresPerMinute },
  { name: 'maxTools', unit: 'count', default: DEFAULT_SERVER_LIMITS.maxTools },
  { name: 'maxMessages', unit: 'count', default: DEFAULT_SERVER_LIMITS.maxMessages },
  { name: 'maxContentBlocks', unit: 'count', default: DEFAULT_SERVER_LIMITS.maxContentBlocks },
  { name: 'responsesStoreBytes', unit: 'bytes', default: DEFAULT_SERVER_LIMITS.responsesStoreBytes },
  { name: 'responsesStoreTtlMs', unit: 'ms', default: DEFAULT_SERVER_LIMITS.responsesStoreTtlMs },
];

const MIB = 1024 * 1024;

export function formatLimit(value: number, unit: Unit): string {
  switch (unit) {
    case 'bytes':
      return value % MIB === 0 ? `${value / MIB} MiB` : value % 1024 === 0 ? `${value / 1024} KiB` : `${value} bytes`;
    case 'ms':
      return value % 60_000 === 0 ? `${value / 60_000} min` : value % 1000 === 0 ? `${value / 1000} s` : `${value} ms`;
    case 'count':
      return String(value);
    case 'per minute':
      return `${value}/min`;
    default:
      return assertNever(unit);
  }
}

interface Row {
  readonly name: string;
  readonly value: string;
}

export function serverLimitsTable(server: ServerConfig, c: ChalkInstance): string {
  const rows: Row[] = LIMITS.map((l) => {
    const value = server[l.name];
    if (typeof value !== 'number') {
      return { name: l.name, value: c.gray(l.derived ? `${formatLimit(l.derived(), l.unit)} (from the open-file limit)` : 'none') };
    }
    const text = formatLimit(value, l.unit);
    return { name: l.name, value: value === l.default ? c.gray(`${text} (default)`) : text };
  });
  rows.push({
    name: 'allowedHosts',
    value: server.allowedHosts.length > 0 ? server.allowedHosts.join(', ') : c.gray('loopback names only (default)'),
  });
  const columns: Column<Row>[] = [
    { header: 'setting', cell: (r) => `server.${r.name}` },
    { header: 'value', cell: (r) => r.value },
  ];
  return formatTable(columns, rows, c);
}
