/**
 * The longest line `inspect` and `replay` read from a recording, in MiB (`--max-line`): a line
 * longer than this is skipped and reported, never held whole. The gateway writes at most 1 MiB
 * of bodies per exchange; JSON escaping and stream events' wrapping can multiply that a few
 * times, not thirty. Its own module so the CLI's option help needs nothing heavier.
 */
export const DEFAULT_MAX_LINE_MIB = 32;
