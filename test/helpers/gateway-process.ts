/**
 * A gateway in a process of its own whose concurrency slots and budget reservations live only `TTL_MS`
 * unless pushed back, so that a test can kill it (SIGKILL) with them held and see them expire without
 * waiting the default. Run as `node --import tsx test/helpers/gateway-process.ts CONFIG.json TTL_MS
 * [LEDGER_DIR]` (with a usage ledger in LEDGER_DIR, read back at start); it prints `listening on <url>`
 * once it serves, and its log lines after.
 */
import { readFileSync } from 'node:fs';
import { Chalk } from 'chalk';
import { sharedBudgetStore } from '#src/budgets/shared-store.js';
import { parseConfig } from '#src/config/parse.js';
import { sharedLimitStore } from '#src/limits/shared-store.js';
import { createLogger } from '#src/log/logger.js';
import { createGateway } from '#src/server/gateway.js';
import { loadRedisClient } from '#src/state/redis-client.js';
import { connectRedis } from '#src/state/redis-connection.js';

const [file, ttl, ledgerDir] = process.argv.slice(2);
const config = parseConfig(JSON.parse(readFileSync(file!, 'utf8')), { env: {} });
const state = config.state;
if (!state) throw new Error(`${file} has no state.redis`);
const logger = createLogger({ out: process.stdout, chalk: new Chalk({ level: 0 }) });
await loadRedisClient();
const connection = connectRedis({ state, logger, whileDown: 'counting locally' });
const limitStore = sharedLimitStore(connection, state, { slotTtlMs: Number(ttl) });
const budgetStore = sharedBudgetStore(connection, state, { reservationTtlMs: Number(ttl) });
const gateway = createGateway({ config, logger, limitStore, budgetStore, ...(ledgerDir ? { ledgerDir } : {}) });
process.stdout.write(`listening on ${await gateway.listen(0, '127.0.0.1')}\n`);
