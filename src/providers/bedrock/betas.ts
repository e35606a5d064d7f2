/**
 * The Anthropic betas Bedrock's InvokeModel takes in the body's `anthropic_beta`, by the name a
 * caller sends in its `anthropic-beta` header, each with the name Bedrock knows it by. Bedrock
 * refuses a request naming a beta it does not know ("invalid beta flag"), so any beta not listed
 * here is left out and named in the dropped list. This is the list in AWS's documentation of the
 * Anthropic Claude Messages API's request parameters on Bedrock; extend it as AWS adds betas.
 */
export const BEDROCK_BETAS: Readonly<Record<string, string>> = {
  'computer-use-2024-10-22': 'computer-use-2024-10-22',
  'computer-use-2025-01-24': 'computer-use-2025-01-24',
  'computer-use-2025-11-24': 'computer-use-2025-11-24',
  'token-efficient-tools-2025-02-19': 'token-efficient-tools-2025-02-19',
  'interleaved-thinking-2025-05-14': 'interleaved-thinking-2025-05-14',
  'output-128k-2025-02-19': 'output-128k-2025-02-19',
  'dev-full-thinking-2025-05-14': 'dev-full-thinking-2025-05-14',
  'fine-grained-tool-streaming-2025-05-14': 'fine-grained-tool-streaming-2025-05-14',
  'context-1m-2025-08-07': 'context-1m-2025-08-07',
  'context-management-2025-06-27': 'context-management-2025-06-27',
  'effort-2025-11-24': 'effort-2025-11-24',
  'tool-search-tool-2025-10-19': 'tool-search-tool-2025-10-19',
  'tool-examples-2025-10-29': 'tool-examples-2025-10-29',
  'compact-2026-01-12': 'compact-2026-01-12',
  // Anthropic's API names tool search and tool examples together; Bedrock takes tool search under its own name.
  'advanced-tool-use-2025-11-20': 'tool-search-tool-2025-10-19',
};

/** The betas of an `anthropic-beta` header value (comma-separated), split into Bedrock's names and the refused. */
export function bedrockBetas(header: string | undefined): { readonly accepted: string[]; readonly refused: string[] } {
  const accepted: string[] = [];
  const refused: string[] = [];
  for (const raw of (header ?? '').split(',')) {
    const beta = raw.trim();
    if (beta === '') continue;
    const name = Object.hasOwn(BEDROCK_BETAS, beta) ? BEDROCK_BETAS[beta] : undefined;
    if (name === undefined) refused.push(beta);
    else if (!accepted.includes(name)) accepted.push(name);
  }
  return { accepted, refused };
}
