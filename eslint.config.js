// Lint: TypeScript rules everywhere, plus the determinism guard of Temporal workflow code: nothing under
// workflows/ may import Node built-ins or I/O libraries (type-only imports, such as the activities' types, are fine).
import tseslint from 'typescript-eslint';
import { builtinModules } from 'node:module';
import importLayers from './eslint-rules/import-layers.js';
import importCycles from './eslint-rules/import-cycles.js';

const nodeBuiltins = builtinModules.flatMap((name) => [name, `node:${name}`, `${name}/*`, `node:${name}/*`]);

export default tseslint.config(
  { ignores: ['node_modules/**', '.tools/**', '.data/**', '.eval/**', 'db/migrations/**'] },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // The layers of the house (README, Layout): a folder imports its own and lower layers only, and no import,
    // type-only ones included, runs in a circle.
    files: ['**/*.ts'],
    plugins: { house: { rules: { 'import-layers': importLayers, 'import-cycles': importCycles } } },
    rules: {
      'house/import-cycles': 'error',
      'house/import-layers': [
        'error',
        {
          layers: { lib: 0, db: 1, integrations: 2, nodes: 3, activities: 4, workflows: 4, worker: 5, api: 5, launcher: 5, client: 6, scripts: 6 },
          allowTypes: [['workflows', 'activities']],
        },
      ],
    },
  },
  {
    // lib/ is pure code shared by every process: clients of the database, Temporal, HTTP and the file system live in
    // db/, integrations/ and launcher/ (README, Layout).
    files: ['lib/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['@mikro-orm/*', 'pg', 'knex', '@temporalio/client', '@temporalio/worker', '@temporalio/activity', 'exceljs', 'koa', '@koa/*'],
              allowTypeImports: true,
              message: 'lib/ holds pure shared code: database, Temporal and HTTP clients belong in db/, integrations/ or launcher/.',
            },
            {
              group: ['node:http', 'node:https', 'node:dns', 'node:child_process', 'node:fs', 'node:fs/*', 'node:net', 'node:tls'],
              importNames: [
                'request',
                'get',
                'lookup',
                'spawn',
                'exec',
                'execFile',
                'readFile',
                'writeFile',
                'createServer',
                'connect',
                'Agent',
                'createConnection',
              ],
              message: 'lib/ does no I/O: HTTP, DNS, process and file-system calls belong in integrations/ or launcher/.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['workflows/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: nodeBuiltins
            .filter((n) => !n.endsWith('/*'))
            .map((name) => ({
              name,
              message: 'Workflow code is deterministic: no Node built-ins (use activities for I/O).',
            })),
          patterns: [
            {
              group: ['node:*', ...nodeBuiltins.filter((n) => n.endsWith('/*'))],
              message: 'Workflow code is deterministic: no Node built-ins (use activities for I/O).',
            },
            {
              group: [
                '@mikro-orm/*',
                'pg',
                'koa',
                'koa-*',
                '@koa/*',
                '@temporalio/client',
                '@temporalio/worker',
                '@temporalio/activity',
                'exceljs',
                'undici',
                'axios',
                '**/db/**',
                '**/api/**',
                '**/activities/**',
                '**/nodes/**',
                '**/integrations/**',
                '**/worker/**',
              ],
              allowTypeImports: true,
              message: 'Workflow code must not import I/O libraries or modules; import activities as types only.',
            },
          ],
        },
      ],
      'no-restricted-globals': [
        'error',
        { name: 'fetch', message: 'No I/O in workflow code: call an activity.' },
        { name: 'process', message: 'No process access in workflow code.' },
        { name: 'setInterval', message: 'Use Temporal timers (sleep) in workflow code.' },
      ],
    },
  },
);
