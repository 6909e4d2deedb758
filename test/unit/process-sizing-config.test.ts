/** The variables that size one API or worker process (docs/operations.md, "Capacity" and "Worker memory"). */
import { expect } from 'chai';
import { loadConfig } from '../../lib/config.js';

describe('process sizing variables', () => {
  it('WORKER_WORKFLOW_CACHE is 500 by default and refuses a value the SDK cannot use, naming the variable', () => {
    expect(loadConfig({}).workerWorkflowCache).to.equal(500);
    expect(loadConfig({ WORKER_WORKFLOW_CACHE: '50' }).workerWorkflowCache).to.equal(50);
    expect(() => loadConfig({ WORKER_WORKFLOW_CACHE: '1' })).to.throw(/WORKER_WORKFLOW_CACHE/);
    expect(() => loadConfig({ WORKER_WORKFLOW_CACHE: 'many' })).to.throw(/WORKER_WORKFLOW_CACHE/);
  });

  it('DATABASE_POOL_MAX is 10 by default and refuses a pool without connections, naming the variable', () => {
    expect(loadConfig({}).databasePoolMax).to.equal(10);
    expect(loadConfig({ DATABASE_POOL_MAX: '4' }).databasePoolMax).to.equal(4);
    expect(() => loadConfig({ DATABASE_POOL_MAX: '0' })).to.throw(/DATABASE_POOL_MAX/);
  });
});
