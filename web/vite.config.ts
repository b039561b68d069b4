import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

const contracts = fileURLToPath(new URL('../packages/contracts/src/index.ts', import.meta.url));

// The console is served by the gateway from web/dist; `npm run dev --workspace web` proxies the
// API and relay to a gateway on :3000.
export default defineConfig({
  plugins: [react()],
  // Contracts from source: the console needs no compiled server packages.
  resolve: { alias: { '@aigw/contracts': contracts } },
  build: {
    outDir: 'dist',
    // dist/.vite/manifest.json: what index.html loads first, measured by scripts/first-load-size.mjs.
    manifest: true,
    // Chunking is the bundler's: each route's screen is its own chunk (app/routes.tsx), and the
    // component library is split along the screens that use it, so the first page loads only
    // what it renders. React alone is a chunk of its own (it changes least, so browsers keep
    // it across releases), which also keeps every chunk under the default 500 kB warning.
    rolldownOptions: {
      output: {
        codeSplitting: { groups: [{ name: 'react', test: /node_modules[\\/](react|react-dom|scheduler)[\\/]/ }] },
      },
    },
  },
  server: {
    proxy: { '/api': 'http://127.0.0.1:3000', '/v1': 'http://127.0.0.1:3000', '/pg': 'http://127.0.0.1:3000' },
  },
});
