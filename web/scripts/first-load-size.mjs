// The console's first-load size: what index.html makes the browser fetch before the first screen
// (the entry chunk, every chunk it imports statically, and their CSS), raw and gzip, read from
// the Vite manifest of a build (`build.manifest: true`). Route chunks loaded on navigation
// (dynamic imports) are not counted.
//
//   node web/scripts/first-load-size.mjs [dist folder, default web/dist] [--json]
import fs from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';

const web = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const dist = path.resolve(args.find((arg) => !arg.startsWith('--')) ?? path.join(web, 'dist'));
const manifestFile = path.join(dist, '.vite', 'manifest.json');
if (!fs.existsSync(manifestFile)) {
  console.error(`no ${manifestFile}: build the console first (npm run build --workspace web)`);
  process.exit(1);
}

/** @type {Record<string, {file: string, isEntry?: boolean, imports?: string[], css?: string[]}>} */
const manifest = JSON.parse(fs.readFileSync(manifestFile, 'utf8'));
const entry =
  Object.keys(manifest).find((key) => manifest[key].isEntry && key.endsWith('index.html')) ?? Object.keys(manifest).find((key) => manifest[key].isEntry);
if (!entry) {
  console.error(`${manifestFile} names no entry chunk`);
  process.exit(1);
}

// The entry and its static imports, transitively: modulepreload links the browser fetches at once.
const files = new Set();
const seen = new Set();
const visit = (key) => {
  if (seen.has(key)) return;
  seen.add(key);
  const chunk = manifest[key];
  files.add(chunk.file);
  for (const css of chunk.css ?? []) files.add(css);
  for (const imported of chunk.imports ?? []) visit(imported);
};
visit(entry);

const rows = [...files]
  .map((file) => {
    const bytes = fs.readFileSync(path.join(dist, file));
    return { file, bytes: bytes.length, gzip: gzipSync(bytes, { level: 9 }).length };
  })
  .sort((a, b) => b.gzip - a.gzip);
const total = rows.reduce((sum, row) => ({ bytes: sum.bytes + row.bytes, gzip: sum.gzip + row.gzip }), { bytes: 0, gzip: 0 });

if (args.includes('--json')) {
  console.log(JSON.stringify({ entry, files: rows, total }, null, 2));
} else {
  const kb = (bytes) => `${(bytes / 1024).toFixed(1)} KB`.padStart(10);
  console.log(`first load of ${path.relative(process.cwd(), dist) || '.'} (entry ${entry}):`);
  for (const row of rows) console.log(`${kb(row.bytes)} ${kb(row.gzip)} gzip  ${row.file}`);
  console.log(`${kb(total.bytes)} ${kb(total.gzip)} gzip  total, ${rows.length} files`);
}
