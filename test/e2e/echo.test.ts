/**
 * The built-in default config end to end: the echo model through the gateway,
 * as a user testing their wiring offline would use it, tool loop included.
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultWrittenConfig } from '#src/config/default.js';
import { startGateway, waitForLines, type TestGateway } from '../helpers/start-gateway.js';

let gw: TestGateway;
let key: string;

beforeAll(async () => {
  const defaults = defaultWrittenConfig({});
  key = defaults.generatedKey!;
  gw = await startGateway(defaults.written);
});
afterAll(() => gw.close());

const weatherTool = {
  name: 'get_weather',
  description: 'Weather for a city',
  input_schema: { type: 'object' as const, properties: { city: { type: 'string' } }, required: ['city'] },
};

describe('the default config with the echo model', () => {
  it('has a generated key and exactly the echo model', async () => {
    expect(key).toMatch(/^mgw-[A-Za-z0-9_-]{40,}$/);
    const models = await new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: key }).models.list();
    expect(models.data.map((m) => m.id)).toEqual(['echo']);
  });

  it('answers Responses, Chat and Messages, streaming and not', async () => {
    const openai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: key, maxRetries: 0 });
    const anthropic = new Anthropic({ baseURL: gw.url, apiKey: key, maxRetries: 0 });
    expect((await openai.responses.create({ model: 'echo', input: 'one' })).output_text).toBe('one');
    expect((await openai.responses.stream({ model: 'echo', input: 'two words' }).finalResponse()).output_text).toBe('two words');
    const chat = await openai.chat.completions.stream({ model: 'echo', messages: [{ role: 'user', content: 'three' }] }).finalChatCompletion();
    expect(chat.choices[0]?.message.content).toBe('three');
    const message = await anthropic.messages.stream({ model: 'echo', max_tokens: 50, messages: [{ role: 'user', content: 'four' }] }).finalMessage();
    expect(message.content).toEqual([expect.objectContaining({ type: 'text', text: 'four' })]);
    // One GET /v1/models line from the test before, then these four.
    const posts = (await waitForLines(gw, 5)).filter((l) => l.includes(' POST '));
    expect(posts).toHaveLength(4);
    for (const line of posts) expect(line).toMatch(/ 200 POST .* echo → echo\/echo local:[0-9a-f]{8} \d+ms/);
  });

  it('runs a Messages tool loop to its end', async () => {
    const anthropic = new Anthropic({ baseURL: gw.url, apiKey: key, maxRetries: 0 });
    const first = await anthropic.messages
      .stream({ model: 'echo', max_tokens: 50, tools: [weatherTool], messages: [{ role: 'user', content: 'call get_weather please' }] })
      .finalMessage();
    expect(first.stop_reason).toBe('tool_use');
    const call = first.content.find((b) => b.type === 'tool_use');
    expect(call).toMatchObject({ name: 'get_weather', input: { city: 'call get_weather please' } });
    const second = await anthropic.messages.create({
      model: 'echo',
      max_tokens: 50,
      tools: [weatherTool],
      messages: [
        { role: 'user', content: 'call get_weather please' },
        { role: 'assistant', content: first.content },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: call!.type === 'tool_use' ? call!.id : '', content: 'sunny' }] },
      ],
    });
    expect(second.stop_reason).toBe('end_turn');
    expect(second.content[0]).toMatchObject({ type: 'text', text: 'Tool result: sunny' });
  });
});
