/** The command line of a bench script: `--name value` options and `--name` flags. */
export const argv = process.argv.slice(2);

export const flag = (name) => argv.includes(`--${name}`);

export const option = (name, fallback) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 && argv[i + 1] !== undefined ? argv[i + 1] : fallback;
};

/** More `serve` flags for the gateway under test: --serve-args "--no-log-bodies --no-inspector". */
export const serveArgs = () => option('serve-args', '').split(' ').filter(Boolean);

/** `--ledger on|off`: the config's `server.ledger` (true, false); absent: the gateway's default. */
export function ledgerOption() {
  const v = option('ledger', undefined);
  if (v === undefined) return undefined;
  if (v !== 'on' && v !== 'off') throw new Error(`--ledger takes on or off, not ${v}`);
  return v === 'on';
}
