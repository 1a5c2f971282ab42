import js from '@eslint/js';
import { defineConfig, globalIgnores } from 'eslint/config';
import tseslint from 'typescript-eslint';

export default defineConfig(
  globalIgnores(['dist/', 'node_modules/', '.troupe/']),
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    rules: {
      // `_`-prefixed names mark parameters a signature requires but the body does not use.
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // These run from the bundle in dist/server/<hash>/, at another depth than their sources: a path
    // relative to the module would point nowhere. Paths start from PACKAGE_ROOT (models/package-root.ts).
    files: ['actors/**/*.ts', 'gateway/**/*.ts', 'models/**/*.ts', 'queues/**/*.ts', 'logging/**/*.ts', 'scripts/**/*.ts'],
    ignores: ['models/package-root.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "NewExpression[callee.name='URL'] > MemberExpression.arguments[object.type='MetaProperty'][property.name='url']",
          message: 'troupe runs bundled: find files from PACKAGE_ROOT (models/package-root.ts), not relative to import.meta.url.',
        },
      ],
    },
  },
  {
    // The CLI's plain-JS launcher and its bundler run on plain Node.
    files: ['bin/**/*.js'],
    languageOptions: { globals: { process: 'readonly' } },
  },
  {
    files: ['test/**/*.ts'],
    rules: {
      // chai's property assertions (`expect(x).to.be.true`) are expressions by design.
      '@typescript-eslint/no-unused-expressions': 'off',
    },
  },
);
