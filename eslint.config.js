import js from '@eslint/js';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import importX from 'eslint-plugin-import-x';
import tseslint from 'typescript-eslint';

/** The app's entry files: they wire the domains together, so nothing below may import them. */
const wiring = ['./server/app.ts', './server/server.ts', './server/resources.ts', './server/schema.ts'];
const adminWiring = ['./admin/src/App.tsx', './admin/src/main.tsx', './admin/src/overrides.tsx'];

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'migrations/**', 'test-results/**', 'playwright-report/**', 'data/**', '.tap/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // The layers: domains -> engine -> core, never back, and no import cycle anywhere (design.md §2).
    files: ['server/**/*.ts', 'admin/src/**/*.{ts,tsx}'],
    plugins: { 'import-x': importX },
    settings: { ...importX.flatConfigs.typescript.settings, 'import-x/resolver-next': [createTypeScriptImportResolver({ project: './tsconfig.json' })] },
    rules: {
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
      'import-x/no-restricted-paths': [
        'error',
        {
          zones: [
            {
              target: './server/core',
              from: './server',
              except: ['./core'],
              message: 'core (config, errors, database, tenancy, jobs) imports nothing from the engine or the domains.',
            },
            {
              target: './server/engine',
              from: './server',
              except: ['./core', './engine'],
              message: 'the engine imports only core; a domain registers with it instead.',
            },
            {
              target: './server/*/**',
              from: wiring,
              message: 'only the app wires domains together; a domain does not import app.ts, resources.ts or schema.ts.',
            },
            // The admin app has the same layers: core (HTTP, providers, metadata), the engine's generic screens, then the domains.
            {
              target: './admin/src/core',
              from: './admin/src',
              except: ['./core'],
              message: "the admin's core (providers, metadata, session) imports nothing from the engine, the shell or the domains.",
            },
            {
              target: './admin/src/engine',
              from: './admin/src',
              except: ['./core', './engine'],
              message: "the admin's engine (generic screens) imports only core; a domain's screens are wired in overrides.tsx.",
            },
            {
              target: './admin/src/*/**',
              from: adminWiring,
              message: 'only App.tsx and overrides.tsx wire the admin domains together.',
            },
          ],
        },
      ],
    },
  },
  {
    // A function longer than a screen does several things: name them (one action's schema, rights and handler together).
    files: ['server/**/*.ts', 'admin/src/**/*.{ts,tsx}'],
    rules: { 'max-lines-per-function': ['error', { max: 100, skipBlankLines: true, skipComments: true }] },
  },
  {
    // The admin app runs in the browser: from the server it takes types only (one definition of a shape), never code.
    files: ['admin/src/**/*.{ts,tsx}'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        { patterns: [{ group: ['**/server/**'], allowTypeImports: true, message: 'the admin app imports only types from the server (import type).' }] },
      ],
    },
  },
  {
    // Tests read JSON bodies of many shapes; typing each would say nothing the assertions do not.
    files: ['tests/**/*.ts', 'bench/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
);
