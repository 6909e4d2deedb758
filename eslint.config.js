// Lint: TypeScript rules everywhere, plus the determinism guard of Temporal workflow code: nothing under
// workflows/ may import Node built-ins or I/O libraries (type-only imports, such as the activities' types, are fine).
import tseslint from 'typescript-eslint';
import { builtinModules } from 'node:module';

const nodeBuiltins = builtinModules.flatMap((name) => [name, `node:${name}`, `${name}/*`, `node:${name}/*`]);

export default tseslint.config(
  { ignores: ['node_modules/**', '.tools/**', '.data/**', 'db/migrations/**'] },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
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
