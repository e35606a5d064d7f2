/**
 * `target.push(...items)` without the spread: a spread passes every item as an argument, which
 * overflows the stack past some hundred thousand, and a request's lists can be that long.
 */
export function append<T>(target: T[], items: readonly T[]): void {
  for (let i = 0; i < items.length; i++) target.push(items[i]!);
}
