import js from '@eslint/js';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import importX from 'eslint-plugin-import-x';
import tseslint from 'typescript-eslint';

/** The app's entry files: they wire the domains together, so nothing below may import them. */
const wiring = ['./server/app.ts', './server/server.ts', './server/resources.ts', './server/app-jobs.ts', './server/schema.ts'];

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
          ],
        },
      ],
    },
  },
  {
    // Tests read JSON bodies of many shapes; typing each would say nothing the assertions do not.
    files: ['tests/**/*.ts', 'bench/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
);
