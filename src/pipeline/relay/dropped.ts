/** The `x-model-gateway-dropped` header: what the gateway left out of the request or approximated, once each. */
export function droppedHeader(warnings: readonly string[] | undefined): string | undefined {
  if (warnings === undefined || warnings.length === 0) return undefined;
  // Header values must be visible ASCII; the phrases are meant to be, this keeps a stray character from failing the request.
  return [...new Set(warnings)].join(', ').replace(/[^\x20-\x7e]/g, '?');
}
