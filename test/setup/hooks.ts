/**
 * Mocha root hooks: one harness for the whole run, and the response contract loaded from the document it serves
 * (every answer `call` receives is then checked against it).
 */
import { loadContract } from './contract.js';
import { startHarness, stopHarness } from './harness.js';

export const mochaHooks = {
  async beforeAll(this: Mocha.Context) {
    this.timeout(120_000);
    const { baseUrl } = await startHarness();
    loadContract((await (await fetch(`${baseUrl}/openapi.json`)).json()) as Record<string, unknown>);
  },
  async afterAll(this: Mocha.Context) {
    this.timeout(60_000);
    await stopHarness();
  },
};
