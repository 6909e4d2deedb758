// Mocha configuration. `npm test` runs the suites under test/ and the unit tests of node executors beside their
// modules (nodes/<type>.node.test.ts), but not the real-process suites of test/reliability/, which
// `npm run test:cluster` runs (`npm start` itself, a Temporal cluster of separate server processes, worker processes
// killed and PostgreSQL servers crashed on purpose). SPEC=path/or/glob.test.ts runs a subset: SPEC=test/api/me.test.ts npx mocha
const cluster = process.env.npm_lifecycle_event === 'test:cluster';
const spec = process.env.SPEC
  ? process.env.SPEC.split(',')
  : cluster
    ? ['test/reliability/**/*.test.ts']
    : ['test/**/*.test.ts', 'nodes/**/*.test.ts'];
module.exports = {
  'node-option': ['import=tsx'],
  require: ['test/setup/hooks.ts'],
  spec,
  ignore: process.env.SPEC || cluster ? [] : ['test/reliability/**'],
  reporter: 'test/setup/summary-reporter.cjs',
  timeout: 20000,
  exit: true,
};
