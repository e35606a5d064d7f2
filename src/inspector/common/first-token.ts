/**
 * Spotting the first event of a stream that carries model output (text, a tool
 * call's arguments, reasoning), in any of the three protocols' stream formats, for
 * the time to first token. Works on raw SSE text and on a decoded event's JSON alike.
 */

/**
 * Messages: `content_block_delta`. Responses: any `response.….delta` event. Chat: a
 * delta with non-empty content or reasoning, or tool calls (the first chunk's
 * `"content":""` is not output).
 */
const TOKEN = /"type":"content_block_delta"|"type":"response\.[a-z_.]+\.delta"|"(?:content|reasoning_content|reasoning)":"[^"]|"tool_calls":\[\{/;

export function carriesToken(text: string): boolean {
  return TOKEN.test(text);
}
