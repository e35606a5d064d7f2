/**
 * The JSON text of a string met on every line the gateway writes (a field's name, a key group, a model):
 * quoted once and kept. Bounded, as some of them are the caller's (a model name a pattern let through).
 */
const quoted = new Map<string, string>();
const LIMIT = 2000;

export function jsonQuoted(value: string): string {
  let json = quoted.get(value);
  if (json === undefined) {
    json = JSON.stringify(value);
    if (quoted.size < LIMIT) quoted.set(value, json);
  }
  return json;
}
