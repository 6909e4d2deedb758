/**
 * The alert rules shipped for operators (docs/operations/alerts.yml): Prometheus accepts them (`promtool check rules`,
 * Debian's prometheus package, installed when missing), and every metric they read is one agentry exports.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { harness, projectRoot } from '../setup/harness.js';
import { ensureDebianProgram } from '../setup/debian-package.js';

const RULES = join(projectRoot, 'docs/operations/alerts.yml');

describe('alert rules for operators', function () {
  this.timeout(600_000);

  it('are valid Prometheus rules (promtool check rules)', function () {
    const promtool = ensureDebianProgram('/usr/bin/promtool', 'prometheus');
    if ('reason' in promtool) this.skip();
    const result = spawnSync(promtool.path, ['check', 'rules', RULES], { encoding: 'utf8' });
    expect(result.status, result.stdout + result.stderr).to.equal(0);
    expect(result.stdout).to.match(/SUCCESS: 5 rules found/);
  });

  it('read only metrics that /metrics exports, and cover the outbox, parked events, failed runs, 5xx and AI errors', async () => {
    const rules = readFileSync(RULES, 'utf8');
    const read = new Set([...rules.matchAll(/\b(agentry_[a-z_]+?)(?:_count|_sum|_bucket)?\b/g)].map((m) => m[1]!));
    expect([...read]).to.include.members([
      'agentry_outbox_oldest_pending_seconds',
      'agentry_outbox_parked_events',
      'agentry_runs_total',
      'agentry_http_request_duration_seconds',
      'agentry_ai_call_duration_seconds',
    ]);
    const exported = await (await fetch(`${harness().origin}/metrics`)).text();
    for (const metric of read) expect(exported, metric).to.match(new RegExp(`^# TYPE ${metric} `, 'm'));
    // The labels the rules select on are the ones the metrics carry.
    expect(rules).to.match(/status="5xx"/);
    expect(rules).to.match(/outcome="failure"/);
  });
});
