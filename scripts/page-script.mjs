// Renders src/session/export-page.generated.ts: the HTML export page's script
// (src/session/export-page/page-script.ts, TypeScript for the browser) bundled by esbuild into one
// ES2017 script, ASCII only, as a string constant. scripts/build.mjs rewrites the file when it
// differs (so dist/ always has the script of the source); test/export-html.test.ts fails when the
// committed file is stale, and rewrites it with UPDATE_PAGE_SCRIPT=1 (`npm run gen:page-script`).
import { build } from 'esbuild';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const PAGE_SCRIPT_ENTRY = fileURLToPath(new URL('../src/session/export-page/page-script.ts', import.meta.url));
export const PAGE_SCRIPT_FILE = fileURLToPath(new URL('../src/session/export-page.generated.ts', import.meta.url));

/** The text of export-page.generated.ts. */
export async function renderPageScript() {
  const result = await build({
    entryPoints: [PAGE_SCRIPT_ENTRY],
    absWorkingDir: ROOT, // the bundle's comments name the files relative to the repository
    bundle: true,
    write: false,
    format: 'iife',
    platform: 'browser',
    target: 'es2017',
    charset: 'ascii',
    legalComments: 'none',
    logLevel: 'silent',
  });
  const script = result.outputFiles[0].text;
  if (/<\/script|<!--/i.test(script)) throw new Error('the page script holds `</script` or `<!--`, which would end or break its <script> element');
  return [
    '// Generated from src/session/export-page/page-script.ts by scripts/page-script.mjs (esbuild): do',
    '// not edit. test/export-html.test.ts fails when it is stale; `npm run gen:page-script` rewrites it',
    '// (and `npm run build` does before bundling).',
    '',
    "/** The HTML export page's inline script: plain ES2017, no `</script`, no `<!--`. */",
    'export const PAGE_SCRIPT = [',
    ...script.split('\n').map((line) => `  ${JSON.stringify(line)},`),
    "].join('\\n');",
    '',
  ].join('\n');
}
