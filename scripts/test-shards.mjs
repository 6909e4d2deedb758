#!/usr/bin/env node
// The suite in TEST_JOBS shards side by side (default 3 on the 2-core machines it runs on: a shard waits on its
// Temporal server, PostgreSQL and timers much of the time; measured with check included, 3 took 3 min 41 s where 2
// took 4 min 28 s, 2026-11-28, in the same sitting): each shard is a
// mocha process with a harness of its own (its database, Temporal dev server, API and worker), given a share of the
// test files balanced by their recorded durations (test/setup/test-timings.json; a file not listed counts as
// DEFAULT_SECONDS). A shard's output is printed when it ends, without its own counts; the suite's counts close the
// output once, as one mocha run closes it (CI tools read the last line, "N passed, N failed, N skipped"). TEST_JOBS=1
// runs plain mocha. Mocha's own --parallel mode is not used: it runs root hooks once per file, and a harness per file
// would cost more than the files themselves.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const jobs = Math.max(1, Number(process.env.TEST_JOBS ?? 3) || 1);
const DEFAULT_SECONDS = 5;
const mocha = join(root, 'node_modules', '.bin', 'mocha');
const timingsFile = join(root, 'test', 'setup', 'test-timings.json');

/** The files `.mocharc.cjs` runs by default: test/ (but not test/reliability/) and the node modules' unit tests. */
function testFiles() {
  const found = [];
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.test.ts')) found.push(relative(root, path));
    }
  };
  walk(join(root, 'test'));
  walk(join(root, 'nodes'));
  return found.filter((file) => !file.startsWith(join('test', 'reliability'))).sort();
}

/** Longest first, each file to the shard with the least work so far. */
function shards(files) {
  const seconds = existsSync(timingsFile) ? JSON.parse(readFileSync(timingsFile, 'utf8')) : {};
  const costOf = (file) => seconds[file] ?? DEFAULT_SECONDS;
  const buckets = Array.from({ length: jobs }, () => ({ files: [], seconds: 0 }));
  for (const file of [...files].sort((a, b) => costOf(b) - costOf(a))) {
    const lightest = buckets.reduce((a, b) => (b.seconds < a.seconds ? b : a));
    lightest.files.push(file);
    lightest.seconds += costOf(file);
  }
  return buckets.filter((b) => b.files.length);
}

function runShard(index, files) {
  return new Promise((resolve) => {
    const child = spawn(mocha, [], { cwd: root, env: { ...process.env, SPEC: files.join(',') } });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('close', (code, signal) => {
      const summary = /^tests: (\d+) passed, (\d+) failed, (\d+) skipped$/m.exec(output);
      process.stdout.write(withoutCounts(output));
      resolve({ code: code ?? 1, signal, counts: summary ? summary.slice(1).map(Number) : null });
    });
  });
}

/**
 * A shard's output without the lines that count its tests (mocha's "N passing", "N pending", "N failing" and the
 * reporter's closing line): counts of a part of the suite, printed in the middle of the output, would read as the
 * end of a run. Everything else, failures and their stacks included, is kept.
 */
function withoutCounts(output) {
  return output
    .split('\n')
    .filter((line) => {
      const plain = line.replace(/\x1b\[[0-9;]*m/g, '');
      return !/^\s*\d+ (passing|pending|failing)( \(\S+\))?$/.test(plain) && !/^tests: \d+ passed, \d+ failed, \d+ skipped$/.test(plain);
    })
    .join('\n');
}

/** `--timings FILE`: rewrites test-timings.json from the "slowest files" list of a TEST_TIMINGS run's output. */
function writeTimings(outputFile) {
  const seconds = {};
  for (const [, time, file] of readFileSync(outputFile, 'utf8').matchAll(/^\s*([\d.]+) s {2}(\S+\.test\.ts)$/gm)) seconds[file] = Number(time);
  const sorted = Object.fromEntries(Object.entries(seconds).sort(([a], [b]) => a.localeCompare(b)));
  writeFileSync(timingsFile, `${JSON.stringify(sorted, null, 2)}\n`);
  console.log(`${Object.keys(sorted).length} files written to ${relative(root, timingsFile)}`);
}

if (process.argv[2] === '--timings') {
  writeTimings(process.argv[3]);
} else if (jobs === 1) {
  const child = spawn(mocha, [], { cwd: root, stdio: 'inherit' });
  child.on('close', (code) => process.exit(code ?? 1));
} else {
  const planned = shards(testFiles());
  console.log(`the suite runs in ${planned.length} mocha processes side by side`);
  const started = Date.now();
  const results = await Promise.all(planned.map((shard, index) => runShard(index, shard.files)));
  const [passed, failed, skipped] = [0, 1, 2].map((i) => results.reduce((sum, r) => sum + (r.counts?.[i] ?? 0), 0));
  const broken = results.filter((r) => r.code !== 0 || !r.counts).length;
  const minutes = Math.round((Date.now() - started) / 60_000);
  const counts = [`  ${passed} passing (${minutes}m)`, skipped && `  ${skipped} pending`, failed && `  ${failed} failing`].filter(Boolean);
  process.stdout.write(`\n\n${counts.join('\n')}\n\ntests: ${passed} passed, ${failed} failed, ${skipped} skipped\n`);
  process.exit(broken || failed ? 1 : 0);
}
