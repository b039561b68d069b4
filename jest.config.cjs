// One jest run for the whole monorepo, in three projects: the services (node), the console's
// component tests (jsdom) and the console's end-to-end tests (a real browser against the
// running all-in-one server). TypeScript is compiled by swc on the fly, and workspace imports
// resolve to sources (not dist) so tests never depend on a stale build.
const swcOptions = (tsx) => ({
  jsc: {
    parser: { syntax: 'typescript', decorators: !tsx, tsx },
    transform: tsx ? { react: { runtime: 'automatic' } } : { legacyDecorator: true, decoratorMetadata: true },
    target: 'es2022',
  },
  module: { type: 'commonjs' },
});
const swc = ['@swc/jest', swcOptions(false)];
const swcReact = ['@swc/jest', swcOptions(true)];

// ESM-only packages that jest on Node 20 cannot require(): let swc transform them.
const esmOnly = ['cookie', 'content-disposition', '@fastify/cookie', 'react-intl', '@formatjs', 'intl-messageformat', 'marked', '@ant-design/colors', 'jose'];
// Packages that load node builtins with a dynamic import(), which jest cannot run without
// --experimental-vm-modules: swc turns it into require() (the OTLP exporter's HTTP transport).
const dynamicImports = ['@opentelemetry/otlp-exporter-base'];
const transformIgnorePatterns = [`/node_modules/(?!(${[...esmOnly, ...dynamicImports].join('|')})/)`];

const workspaceSources = {
  '^@aigw/(contracts|platform)$': '<rootDir>/packages/$1/src/index.ts',
  '^@aigw/platform/testing$': '<rootDir>/packages/platform/src/testing/index.ts',
  '^@aigw/platform/tracing$': '<rootDir>/packages/platform/src/tracing/index.ts',
  '^@aigw/([a-z]+)/plugin$': '<rootDir>/services/$1/src/plugin.ts',
  '^(\\.{1,2}/.*)\\.js$': '$1',
};

/** @type {import('jest').Config} */
module.exports = {
  maxWorkers: 2,
  testTimeout: 30000,
  projects: [
    {
      displayName: 'services',
      testEnvironment: 'node',
      transform: { '^.+\\.(t|j)sx?$': swc, '^.+\\.mjs$': swc },
      transformIgnorePatterns,
      testMatch: ['<rootDir>/packages/*/test/**/*.test.ts', '<rootDir>/services/*/test/**/*.test.ts', '<rootDir>/tools/**/test/**/*.test.ts'],
      moduleNameMapper: workspaceSources,
    },
    {
      displayName: 'web',
      testEnvironment: '<rootDir>/web/test/environment.cjs',
      transform: { '^.+\\.(t|j)sx?$': swcReact, '^.+\\.mjs$': swcReact },
      transformIgnorePatterns,
      testMatch: ['<rootDir>/web/test/**/*.test.ts?(x)'],
      setupFiles: ['<rootDir>/web/test/setup.ts'],
      setupFilesAfterEnv: ['<rootDir>/web/test/setup-after-env.ts'],
      moduleNameMapper: { ...workspaceSources, '\\.css$': '<rootDir>/web/test/style-stub.ts' },
    },
    {
      displayName: 'e2e',
      testEnvironment: 'node',
      // .mjs: the mock upstream (tools/mock-upstream/server.mjs) runs in the test process.
      transform: { '^.+\\.(t|j)sx?$': swc, '^.+\\.mjs$': swc },
      transformIgnorePatterns,
      testMatch: ['<rootDir>/web/e2e/**/*.e2e.ts'],
      globalSetup: '<rootDir>/web/e2e/support/global-setup.cjs',
      moduleNameMapper: workspaceSources,
    },
  ],
};
