/**
 * How replies are cut into stream deltas. Pieces always concatenate back to the exact
 * input and never split a surrogate pair (a lone surrogate in JSON breaks strict parsers
 * such as Codex's serde).
 */

/** One piece per word, each keeping the whitespace that follows it. */
export const splitWords = (text: string): string[] => (text === '' ? [] : text.split(/(?<=\s)(?=\S)/u));

/** `json` cut into `count` pieces of about equal length (fewer when it is shorter), so clients exercise concatenation. */
export function splitJson(json: string, count = 3): string[] {
  const chars = Array.from(json);
  const size = Math.max(1, Math.ceil(chars.length / count));
  const pieces: string[] = [];
  for (let at = 0; at < chars.length; at += size) pieces.push(chars.slice(at, at + size).join(''));
  return pieces;
}
