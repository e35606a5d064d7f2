/** The `anthropic-version` sent to a Messages upstream when the caller spoke another protocol: the version every model accepts. */
export const DEFAULT_ANTHROPIC_VERSION = '2023-06-01';
