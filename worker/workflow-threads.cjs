// Preloaded (`node --require`) into every thread of a worker process (launcher/node-args.ts); it acts in the threads
// the Temporal SDK runs workflow code in. There the SDK installs a promise hook that records a source-mapped stack
// trace for every promise a workflow makes: the data of the Temporal UI's "Stack Trace" tab of an open workflow, and
// about a quarter of a worker's CPU per run (docs/operations.md, "Workflow stack traces"). Unless
// WORKFLOW_STACK_TRACES is true, the hook is left out; the SDK then answers the stack trace query with "Workflow stack
// traces are not enabled on this worker", as it does on runtimes without promise hooks. lib/config.ts validates the
// variable in the worker's main thread, which runs before any workflow thread starts.
'use strict';
// eslint-disable-next-line @typescript-eslint/no-require-imports -- a --require preload is CommonJS
const { isMainThread } = require('node:worker_threads');

if (!isMainThread && process.env.WORKFLOW_STACK_TRACES?.trim().toLowerCase() !== 'true') {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- as above
    const { globalHandlers } = require('@temporalio/worker/lib/workflow/vm-shared.js');
    if (typeof globalHandlers?.setPromiseHook !== 'function') throw new Error('GlobalHandlers.setPromiseHook is gone');
    globalHandlers.setPromiseHook = () => {};
  } catch (error) {
    // Another SDK version: stack traces stay on, which costs CPU and nothing else (test/reliability/workflow-stack-traces.test.ts fails).
    process.emitWarning(`workflow stack traces could not be turned off: ${error.message}`);
  }
}
