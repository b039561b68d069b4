// Lint for every workspace (`npm run lint`, run by CI). Type-aware: the rules that matter here
// need the types (a promise nobody awaits, an async function where a void callback is expected,
// an `any` leaking into typed code, a switch that forgets a member of a union). Formatting is
// Prettier's job (eslint-config-prettier turns off the rules that would fight it).
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: ['**/dist/**', '**/node_modules/**', '**/coverage/**', '**/test-output/**', 'data/**', 'tools/bench/results/**', '**/*.d.mts'],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        // One program per tsconfig: the services' and packages' sources, the tests (whose
        // tsconfig maps workspace imports to sources) and the console.
        project: ['./packages/*/tsconfig.json', './services/*/tsconfig.json', './tsconfig.test.json', './web/tsconfig.json'],
        tsconfigRootDir: import.meta.dirname,
      },
      globals: { ...globals.node },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // Bugs, not style.
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      // Off: an async function without await is how a port or a Fastify handler promises its
      // answer; the rule would have them return Promise.resolve(...) instead, which says less.
      '@typescript-eslint/require-await': 'off',
    },
  },
  {
    // Tests read wire answers (`response.json()` is any by design) and check them with expect(),
    // which is the runtime check the unsafe-any rules ask for. Promise rules stay on: an
    // unawaited assertion is a test that asserts nothing.
    files: ['**/test/**/*.{ts,tsx}', 'web/e2e/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
    },
  },
  {
    files: ['web/src/**/*.{ts,tsx}', 'web/test/**/*.{ts,tsx}'],
    plugins: { 'react-hooks': reactHooks },
    languageOptions: { globals: { ...globals.browser } },
    rules: {
      'react-hooks/rules-of-hooks': 'error',
      'react-hooks/exhaustive-deps': 'error',
      // Off in the console: what it flags there is props and RTK Query helpers typed with method
      // shorthand (`onClose(): void`), which never use `this` (47 findings, none a bug).
      '@typescript-eslint/unbound-method': 'off',
    },
  },
  {
    // The per-request path (docs/architecture.md section 5): no object literal that starts with a
    // spread and goes on (`{ ...a, b }`, `{ ...(x ? { a } : {}), b }`). On Node 20 (V8 11) an object
    // cloned by a leading spread and then extended survives the young-generation collections
    // whatever holds it: each one promoted, the scavenges' pauses and the old generation's growth;
    // and it is slow (the hold's price took 1.2 us a call for two such literals, 0.09 without).
    // Write `Object.assign({}, a, { b })`, or assign the optional fields one by one.
    files: [
      'services/relay/src/{relay-call,metering,streaming,caller,usage-publisher,usage-outbox,overhead,idempotency,token-cache,relay-span,plugin}.ts',
      'services/relay/src/operations/*.ts',
      'services/relay/src/limits/*.ts',
      'services/relay/src/providers/shared/*.ts',
      'services/relay/src/providers/openai/{chat,compatible}.ts',
      'packages/platform/src/messaging.ts',
      'packages/platform/src/{bus,counters,quota,egress}/*.ts',
      'services/billing/src/usage-batch.ts',
      'services/channels/src/usage.ts',
      'packages/contracts/src/pricing.ts',
    ],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: 'ObjectExpression > SpreadElement:first-child:not(:last-child)',
          message: 'On the per-request path a leading spread that goes on keeps the object past young-generation GCs (V8 11): use Object.assign({}, a, { b }).',
        },
      ],
    },
  },
  {
    // Plain JavaScript (tools, scripts, configs) has no types to check against.
    files: ['**/*.{js,mjs,cjs}'],
    ...tseslint.configs.disableTypeChecked,
  },
  {
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs' },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  prettier,
);
