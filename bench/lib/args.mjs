/** The command line of a bench script: `--name value` options and `--name` flags. */
export const argv = process.argv.slice(2);

export const flag = (name) => argv.includes(`--${name}`);

export const option = (name, fallback) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 && argv[i + 1] !== undefined ? argv[i + 1] : fallback;
};

/** More `serve` flags for the gateway under test: --serve-args "--no-log-bodies --no-inspector". */
export const serveArgs = () => option('serve-args', '').split(' ').filter(Boolean);
