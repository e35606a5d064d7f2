/**
 * The page's script and stylesheet, bundled by scripts/build-inspector.mjs. Found, in
 * order: embedded in the standalone binary (an esbuild `define`), beside this module
 * in dist/ (`npm run build`), or, when running from the TypeScript sources (tests,
 * `npm run dev`), bundled in memory on first use with esbuild.
 */
export interface PageAssets {
  readonly js: string;
  readonly css: string;
}

// Replaced by an object literal when scripts/build-binary.mjs bundles the standalone binary.
declare const MODEL_GATEWAY_INSPECTOR_ASSETS: PageAssets | undefined;

let loading: Promise<PageAssets> | undefined;

export function loadAssets(): Promise<PageAssets> {
  loading ??= load();
  // A failure is not cached: the page may be built while the gateway runs.
  loading.catch(() => (loading = undefined));
  return loading;
}

async function load(): Promise<PageAssets> {
  if (typeof MODEL_GATEWAY_INSPECTOR_ASSETS === 'object') return MODEL_GATEWAY_INSPECTOR_ASSETS;
  const here = import.meta.url;
  if (!here) throw new Error('this build of model-gateway has no inspector page embedded');
  if (here.endsWith('.ts')) {
    // Held in a variable so no bundler follows it: esbuild is a dev dependency.
    const script = new URL('../../scripts/build-inspector.mjs', here).href;
    const { bundleInspector } = (await import(script)) as { bundleInspector: () => Promise<PageAssets> };
    return bundleInspector();
  }
  const { readFile } = await import('node:fs/promises');
  const [js, css] = await Promise.all([
    readFile(new URL('./assets/inspector.js', here), 'utf8'),
    readFile(new URL('./assets/inspector.css', here), 'utf8'),
  ]).catch((err: unknown) => {
    throw new Error(`the inspector page is not built (${(err as Error).message}); run npm run build`);
  });
  return { js, css };
}
