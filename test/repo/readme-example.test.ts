/** The README shows the shipped example config as it is, so that what a reader copies is what loads. */
import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';

const read = (file: string) => readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8');

it("the README's complete example is gateway.config.example.json, byte for byte", () => {
  const readme = read('README.md');
  const block = /A complete example is \[`gateway\.config\.example\.json`\][^\n]*\n\n```json\n([\s\S]*?)```\n/.exec(readme);
  expect(block, 'the README introduces the example with its file name').not.toBeNull();
  expect(block![1]).toBe(read('gateway.config.example.json'));
});
