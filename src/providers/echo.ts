/** Entry for the built-in `echo` provider; the implementation and its rules live in `echo/`. */
export { createEchoProvider, type EchoDeps } from './echo/provider.js';
export { echoReply, type EchoReply } from './echo/reply.js';
export { encodeJson, encodeSse } from './echo/encode.js';
export type { EchoMeta, EchoIds } from './echo/meta.js';
export type { SseEvent } from './echo/sse.js';
