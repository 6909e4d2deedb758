/**
 * The worked example of docs/versions-and-bundles.md runs as written: its `sh` blocks in one bash shell, in order, in
 * an empty folder, against the test platform (`BASE`, and a USER key of two new accounts as `KEY_A` and `KEY_B`).
 * `SHOW_DOC_OUTPUT=1` prints what they printed (the outputs the guide shows come from such a run).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { ensureDebianProgram } from '../setup/debian-package.js';
import { harness } from '../setup/harness.js';
import { newAccount } from '../setup/http.js';
import { shellBlocks } from './first-steps.test.js';

describe('the versions and bundles guide runs as written', function () {
  this.timeout(120_000);

  it('publishes three versions and diffs them, promotes the agent from one account to another, prunes what staging dropped, rolls back', async function () {
    if ('reason' in ensureDebianProgram('/usr/bin/jq', 'jq')) this.skip();
    const blocks = shellBlocks('docs/versions-and-bundles.md', '### Worked example: staging to production');
    expect(blocks.length).to.be.at.least(6);
    const [a, b] = [await newAccount(), await newAccount()];
    const dir = mkdtempSync(join(tmpdir(), 'agentry-guide-'));
    const script = ['set -euo pipefail', ...blocks.map((block, i) => `echo "--- block ${i + 1}"\n${block}`)].join('\n');
    const env = { PATH: process.env.PATH, HOME: process.env.HOME, KEY_A: a.userKey, KEY_B: b.userKey, BASE: harness().baseUrl };
    const result = await new Promise<{ status: number; stdout: string; stderr: string }>((resolve) =>
      execFile('bash', ['-c', script], { cwd: dir, timeout: 90_000, env }, (error, stdout, stderr) =>
        resolve({ status: error ? ((error.code as number | undefined) ?? -1) : 0, stdout, stderr }),
      ),
    );
    rmSync(dir, { recursive: true, force: true });
    if (process.env.SHOW_DOC_OUTPUT) console.log(result.stdout);
    expect(result.status, `${result.stdout}\n${result.stderr}`).to.equal(0);
    const out = result.stdout;
    expect(out).to.include(
      [
        '{"version":3,"message":"Asks for more","isLive":true}',
        '{"version":2,"message":"Warmer greeting","isLive":false}',
        '{"version":1,"message":"First greeting","isLive":false}',
      ].join('\n'),
    );
    // The diff 1 → 3: the changed greeting, the added node and its edge, nothing else.
    expect(out).to.include('"changed SAY_AI say_ai_1 (\\"say_ai\\"): data.message \\"Hello\\" → \\"Hello, how can I help?\\""');
    expect(out).to.include('"added SAY_AI say_ai_2 (\\"follow_up\\")"');
    expect(out).to.include('"added edge say_ai_1 —default→ say_ai_2"');
    expect(out).to.match(/"dryRun": true,\n {2}"kind": "agent",\n(.*\n){2} {2}"action": "create",/);
    expect(out).to.match(/\{"name":"Shop","isOffline":true\}/);
    expect(out).to.include('{"action":"unchanged","create":[],"update":[]}');
    // The promotion: the greeting published as B's version 2; the Returns flow and intent stale, then pruned.
    expect(out).to.include('live graph published as version 2: changed SAY_AI say_ai_1');
    expect(out).to.match(/"stale": \[\n {4}\{\n {6}"kind": "flow",\n {6}"name": "Returns"/);
    expect(out).to.match(
      /\{"action":"update","remove":\[\{"kind":"flow","name":"Returns",[^\]]*\},\{"kind":"intent","name":"Returns",[^\]]*\}\],"stale":\[\]\}/,
    );
    expect(out).to.include('{"version":3,"message":"Restored version 1","isLive":true}');
    expect((await fetchJson(`/agents?limit=10`, b.userKey)).agentry).to.have.length(1);
  });
});

async function fetchJson(path: string, key: string): Promise<any> {
  const res = await fetch(`${harness().baseUrl}${path}`, { headers: { authorization: `Bearer ${key}` } });
  return res.json();
}
