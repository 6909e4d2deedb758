// Mocha configuration. SPEC=path/or/glob.test.ts runs a subset: SPEC=test/api/me.test.ts npx mocha
// The suites under test/, and the unit tests of node executors beside their modules (nodes/<type>.node.test.ts).
module.exports = {
  'node-option': ['import=tsx'],
  require: ['test/setup/hooks.ts'],
  spec: process.env.SPEC ? process.env.SPEC.split(',') : ['test/**/*.test.ts', 'nodes/**/*.test.ts'],
  reporter: 'test/setup/summary-reporter.cjs',
  timeout: 20000,
  exit: true,
};
