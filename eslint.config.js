// ESLint with typescript-eslint's recommended rules over the project's code (npm run lint). Findings are fixed in the
// tree; the few exceptions below, and the `eslint-disable-next-line` comments in the code, each say why.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/'] },
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    rules: {
      // `_`-prefixed names are deliberately unused (a callback's position, a destructured field left out).
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true }],
      // Control characters are matched on purpose: git's C quoting, HTTP header values, tar fields, Move ASCII strings.
      'no-control-regex': 'off',
    },
  },
  {
    // Only the composition roots read the environment; everything else is given what it needs.
    files: ['src/**/*.ts'],
    ignores: ['src/main/**'],
    rules: { 'no-restricted-properties': ['error', { object: 'process', property: 'env', message: 'only src/main/ reads the environment: take the value as a parameter' }] },
  },
  {
    // Tests read untyped JSON (vectors, HTTP answers of the stand-ins) field by field and feed wrong shapes on purpose.
    files: ['test/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    // dependency-cruiser's configuration is CommonJS.
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { module: 'writable', require: 'readonly' } },
  },
  {
    // The example apps run on plain Node.
    files: ['examples/**/*.js'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly', setTimeout: 'readonly' } },
  },
);
