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
    chunkSizeWarningLimit: 2048,
    rollupOptions: {
      output: {
        // The component library changes less often than the console: cache it apart.
        manualChunks(id: string) {
          if (/node_modules\/(antd|@ant-design|rc-|@rc-component)/.test(id)) return 'antd';
          if (/node_modules\/(react|react-dom|scheduler|react-router|react-redux|@reduxjs|react-intl|@formatjs|intl-messageformat)\//.test(id)) return 'framework';
          return undefined;
        },
      },
    },
  },
  server: {
    proxy: { '/api': 'http://127.0.0.1:3000', '/v1': 'http://127.0.0.1:3000', '/pg': 'http://127.0.0.1:3000' },
  },
});
