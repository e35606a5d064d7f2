/** The order in which bench/load.mjs's interleaved mode visits its targets. */

/**
 * An order of visits to `n` targets in which each follows every other one exactly once, and never itself:
 * an Euler circuit of the complete directed graph (Hierholzer's algorithm). Each target comes up n - 1
 * times; repeated, the order stays balanced across its seams.
 */
export function balancedOrder(n) {
  if (n === 1) return [0];
  const unused = Array.from({ length: n }, (_, v) => Array.from({ length: n }, (_, w) => w).filter((w) => w !== v));
  const stack = [0];
  const circuit = [];
  while (stack.length > 0) {
    const v = stack[stack.length - 1];
    if (unused[v].length > 0) stack.push(unused[v].pop());
    else circuit.push(stack.pop());
  }
  return circuit.reverse().slice(0, -1);
}
