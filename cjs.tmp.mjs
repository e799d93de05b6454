import { build } from 'esbuild';
await build({
  entryPoints: { lmaudit: 'src/cli/main.ts' }, outdir: '.probe/distC', outExtension: { '.js': '.cjs' },
  bundle: true, platform: 'node', format: 'cjs', target: 'node20',
  plugins: [{ name: 'ext', setup(b) { b.onResolve({ filter: /^[^./]/ }, (a) => { const keep = ['@duckdb/node-api', 'zod', 'commander', 'js-yaml'].some((p) => a.path === p || a.path.startsWith(p + '/')); return keep ? undefined : { external: true }; }); } }],
  define: { 'import.meta.url': '__lmauditUrl' },
  banner: { js: "const __lmauditUrl = require('node:url').pathToFileURL(__filename).href;" },
  logLevel: 'warning',
});
