/**
 * Type drift: what this codec emits must fit the official Anthropic SDK types (where the API sends
 * less than they say, as the API sends it: test/helpers/anthropic-api-types.ts), so a field the SDK
 * renames or retypes fails `vitest --typecheck` here instead of surprising a client.
 */
import type Anthropic from '@anthropic-ai/sdk';
import { describe, expectTypeOf, it } from 'vitest';
import type { ApiMessage, ApiStreamEvent } from '../../../../test/helpers/anthropic-api-types.js';
import type { Mutable } from '../../../../test/helpers/mutable.js';
import type { buildMessage } from './encode-response.js';
import type { StreamEvent } from './wire.js';

/** Every event but our `ping` and `error`, which the SDK handles outside its event union. */
type Typed = Exclude<StreamEvent, { type: 'ping' } | { type: 'error' }>;

describe('emitted shapes fit the SDK types', () => {
  it('Message', () => {
    expectTypeOf<Mutable<ReturnType<typeof buildMessage>>>().toExtend<ApiMessage>();
  });

  it('every stream event the SDK types', () => {
    expectTypeOf<Mutable<Typed>>().toExtend<ApiStreamEvent>();
  });

  it('a text block is the SDK’s without `citations`, which the API leaves out when nothing is cited', () => {
    type Text = Extract<ReturnType<typeof buildMessage>['content'][number], { type: 'text' }>;
    expectTypeOf<Mutable<Text>>().toEqualTypeOf<Omit<Anthropic.TextBlock, 'citations'>>();
  });
});
