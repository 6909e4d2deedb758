// Mocha's spec reporter plus one closing line in the plain form CI tools read: "N passed, N failed, N skipped".
// eslint-disable-next-line @typescript-eslint/no-require-imports -- mocha loads reporters as CommonJS
const Mocha = require('mocha');

class SummaryReporter extends Mocha.reporters.Spec {
  constructor(runner, options) {
    super(runner, options);
    runner.once(Mocha.Runner.constants.EVENT_RUN_END, () => {
      const { passes, failures, pending } = runner.stats;
      process.stdout.write(`\ntests: ${passes} passed, ${failures} failed, ${pending} skipped\n`);
    });
  }
}

module.exports = SummaryReporter;
