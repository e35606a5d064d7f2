/**
 * A recorded answer against its replay. Only the status and the answer's form (a
 * stream, reaching its end event, or JSON) decide whether the replay matches: model
 * output may differ from one run to the next, so text, tool calls and body
 * differences are shown, not judged.
 */
import type { BodyJson } from '../log/exchange-json.js';
import { diffJson, type Difference } from './json-diff.js';
import { summarisedProtocol, summarise, type Summary } from './summary.js';

export interface Answer {
  readonly status?: number;
  readonly body: BodyJson;
  /** Why the body stopped early, when it did. */
  readonly error?: string;
}

export interface Comparison {
  readonly recorded: Answer;
  readonly replayed: Answer;
  /** Whether the recorded answer was a stream. */
  readonly stream: boolean;
  /** For create endpoints (Chat, Responses, Messages): what each answer said. */
  readonly summaries?: { readonly recorded: Summary; readonly replayed: Summary };
  /** JSON bodies: where they differ, ids, timestamps and usage left out. */
  readonly differences: readonly Difference[];
  /** What makes the replay a mismatch; empty when it matches. */
  readonly problems: readonly string[];
}

export function compareAnswers(path: string, recorded: Answer, replayed: Answer): Comparison {
  const protocol = summarisedProtocol(path);
  const summaries = protocol
    ? { recorded: summarise(protocol, recorded.body, recorded.status), replayed: summarise(protocol, replayed.body, replayed.status) }
    : undefined;
  const stream = recorded.body.events !== undefined;
  const bothJson = recorded.body.json !== undefined && replayed.body.json !== undefined;
  const differences = bothJson ? diffJson(recorded.body.json, replayed.body.json) : [];

  const problems: string[] = [];
  if (recorded.status !== replayed.status) problems.push(`status ${recorded.status ?? 'none'} → ${replayed.status ?? 'none'}`);
  const replayedStream = replayed.body.events !== undefined;
  if (stream && !replayedStream) problems.push('the answer is not a stream');
  else if (!stream && replayedStream) problems.push('the answer is a stream where JSON was recorded');
  // Without a summary (a stream on a path that is not a create endpoint) any event counts as the end.
  else if (stream && summaries && summaries.replayed.ended !== true) problems.push('the stream did not end with its end event');
  if (replayed.error !== undefined) problems.push(`the answer broke off: ${replayed.error}`);
  return { recorded, replayed, stream, ...(summaries ? { summaries } : {}), differences, problems };
}
