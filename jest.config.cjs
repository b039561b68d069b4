// One jest run for the whole monorepo: TypeScript sources are compiled by swc on the fly, and
// workspace imports resolve to sources (not dist) so tests never depend on a stale build.
const swc = ['@swc/jest', {
  jsc: {
    parser: { syntax: 'typescript', decorators: true },
    transform: { legacyDecorator: true, decoratorMetadata: true },
    target: 'es2022',
  },
  module: { type: 'commonjs' },
}];

// ESM-only packages that jest on Node 20 cannot require(): let swc transform them.
const esmOnly = ['cookie', 'content-disposition', '@fastify/cookie'];

/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  transform: { '^.+\\.(t|j)sx?$': swc, '^.+\\.mjs$': swc },
  transformIgnorePatterns: [`/node_modules/(?!(${esmOnly.join('|')})/)`],
  testMatch: ['<rootDir>/packages/*/test/**/*.test.ts', '<rootDir>/services/*/test/**/*.test.ts', '<rootDir>/tools/**/test/**/*.test.ts'],
  moduleNameMapper: {
    '^@aigw/(contracts|platform)$': '<rootDir>/packages/$1/src/index.ts',
    '^@aigw/platform/testing$': '<rootDir>/packages/platform/src/testing/index.ts',
    '^@aigw/([a-z]+)/plugin$': '<rootDir>/services/$1/src/plugin.ts',
    '^(\\.{1,2}/.*)\\.js$': '$1',
  },
  testTimeout: 30000,
  maxWorkers: 2,
};
