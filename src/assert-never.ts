/** The default branch of an exhaustive switch: a compile error when a case is missing, a throw if one arrives anyway. */
export function assertNever(value: never): never {
  throw new Error(`unexpected value: ${JSON.stringify(value)}`);
}
