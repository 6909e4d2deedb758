// Mocha's spec reporter plus one closing line in the plain form CI tools read: "N passed, N failed, N skipped".
// With TEST_TIMINGS=N it also prints the N test files that took longest (their tests and hooks), to find where the
// suite's time goes.
// eslint-disable-next-line @typescript-eslint/no-require-imports -- mocha loads reporters as CommonJS
const Mocha = require('mocha');
// eslint-disable-next-line @typescript-eslint/no-require-imports -- as above
const { relative } = require('node:path');

const { EVENT_RUN_END, EVENT_SUITE_BEGIN, EVENT_SUITE_END } = Mocha.Runner.constants;

class SummaryReporter extends Mocha.reporters.Spec {
  constructor(runner, options) {
    super(runner, options);
    const slowest = Number(process.env.TEST_TIMINGS) || 0;
    const files = new Map();
    if (slowest) {
      const started = new Map();
      runner.on(EVENT_SUITE_BEGIN, (suite) => suite.file && !started.has(suite.file) && started.set(suite.file, Date.now()));
      runner.on(EVENT_SUITE_END, (suite) => {
        if (!suite.file || suite.parent?.file === suite.file) return;
        files.set(suite.file, (files.get(suite.file) ?? 0) + Date.now() - started.get(suite.file));
        started.delete(suite.file);
      });
    }
    runner.once(EVENT_RUN_END, () => {
      const { passes, failures, pending } = runner.stats;
      if (slowest) {
        const top = [...files].sort((a, b) => b[1] - a[1]).slice(0, slowest);
        process.stdout.write(
          `\nslowest files:\n${top.map(([file, ms]) => `${(ms / 1000).toFixed(1).padStart(7)} s  ${relative(process.cwd(), file)}`).join('\n')}\n`,
        );
      }
      process.stdout.write(`\ntests: ${passes} passed, ${failures} failed, ${pending} skipped\n`);
    });
  }
}

module.exports = SummaryReporter;
