// The lint of the web client's JavaScript (server/web/js): ESLint's recommended rules for ES
// modules in a browser, and three habits the Rust has by its nature (no `var`, nothing
// reassignable that is never reassigned, no loose equality but `== null`).
// server/tests/web_lint.rs runs it; by hand, from server/web after `npm ci` in this folder:
// `../web-lint/node_modules/.bin/eslint --config ../web-lint/eslint.config.js js`.

import js from '@eslint/js';
import globals from 'globals';

export default [
  js.configs.recommended,
  {
    files: ['**/*.js'],
    languageOptions: {
      ecmaVersion: 2022,
      sourceType: 'module',
      globals: globals.browser,
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      'no-var': 'error',
      'prefer-const': 'error',
      eqeqeq: ['error', 'always', { null: 'ignore' }],
    },
  },
];
