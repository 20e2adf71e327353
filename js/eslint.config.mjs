// ESLint (flat config) for the page's ES modules and their Node unit tests: `make lint` runs it from the
// repository root (`--config js/eslint.config.mjs`: the linter is a devDependency of js/, the page's JS tooling).
import js from '@eslint/js';
import globals from 'globals';

export default [
  js.configs.recommended,
  {
    files: ['site_template/app/**/*.js'],
    languageOptions: { ecmaVersion: 2024, sourceType: 'module', globals: globals.browser },
  },
  {
    files: ['site_template/app/embed-worker.js'],
    languageOptions: { globals: globals.worker },
  },
  {
    files: ['tests/js/**/*.mjs'],
    languageOptions: { ecmaVersion: 2024, sourceType: 'module', globals: globals.node },
  },
  {
    // The same line length as ruff's; comments count, long literals and URLs do not.
    files: ['site_template/app/**/*.js', 'tests/js/**/*.mjs'],
    rules: {
      'max-len': ['error', {
        code: 120,
        ignoreUrls: true,
        ignoreStrings: true,
        ignoreTemplateLiterals: true,
        ignoreRegExpLiterals: true,
      }],
      complexity: ['error', 25],
    },
  },
];
