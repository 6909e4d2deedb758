// Mocha configuration. SPEC=path/or/glob.test.ts runs a subset: SPEC=test/api/me.test.ts npx mocha
module.exports = {
  'node-option': ['import=tsx'],
  require: ['test/setup/hooks.ts'],
  spec: process.env.SPEC ? process.env.SPEC.split(',') : ['test/**/*.test.ts'],
  reporter: 'test/setup/summary-reporter.cjs',
  timeout: 20000,
  exit: true,
};
