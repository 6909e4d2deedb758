#!/usr/bin/env node
// `npm run check`: the type check, lint and format check side by side (each is single-threaded, so on two cores they
// take the time of the slowest instead of the sum). Each one's output is printed whole when it ends; the exit code is
// the first failure's.
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const bin = (name) => join(root, 'node_modules', '.bin', name);
const checks = [
  ['tsc', [bin('tsc'), '--noEmit']],
  ['eslint', [bin('eslint'), '.']],
  ['prettier', [bin('prettier'), '--check', '--log-level', 'warn', '.']],
];

const results = await Promise.all(
  checks.map(
    ([name, [command, ...args]]) =>
      new Promise((resolve) => {
        const child = spawn(command, args, { cwd: root, shell: process.platform === 'win32' });
        let output = '';
        child.stdout.on('data', (chunk) => (output += chunk));
        child.stderr.on('data', (chunk) => (output += chunk));
        child.on('error', (error) => resolve({ name, code: 1, output: `${output}${error.message}\n` }));
        child.on('close', (code) => {
          if (output) process.stderr.write(`[${name}]\n${output}`);
          resolve({ name, code: code ?? 1, output });
        });
      }),
  ),
);
const failed = results.filter((r) => r.code !== 0);
for (const { name, code } of failed) console.error(`[check] ${name} failed (exit code ${code})`);
process.exit(failed.length ? failed[0].code : 0);
