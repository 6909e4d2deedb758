/**
 * The commands of the docs run as written: the fenced `sh` blocks of README's "First steps", then those of the API
 * guide's worked examples, in one bash shell and in order, against the test platform (its base URL and a new
 * account's USER key as `BASE` and `KEY`, as a reader of the README would set them).
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { ensureDebianProgram } from '../setup/debian-package.js';
import { harness, projectRoot } from '../setup/harness.js';
import { newAccount } from '../setup/http.js';

/** The `sh` blocks of the part of a Markdown file under `heading` (up to the next heading of that level or higher). */
export function shellBlocks(file: string, heading: string): string[] {
  const text = readFileSync(join(projectRoot, file), 'utf8');
  const start = text.indexOf(`\n${heading}\n`);
  if (start < 0) throw new Error(`${file} has no heading "${heading}"`);
  const level = heading.indexOf(' ');
  const rest = text.slice(start + heading.length + 2);
  const next = rest.search(new RegExp(`^#{1,${level}} `, 'm'));
  const section = next < 0 ? rest : rest.slice(0, next);
  return [...section.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
}

describe('the docs run as written', function () {
  this.timeout(180_000);

  it("runs README's first steps, then the API guide's worked examples, against a fresh account", async function () {
    if ('reason' in ensureDebianProgram('/usr/bin/jq', 'jq')) this.skip();
    const first = shellBlocks('README.md', '## First steps (five minutes, with curl)');
    const examples = shellBlocks('docs/api.md', '## Worked examples, one per resource family');
    expect(first.length).to.be.at.least(4);
    expect(examples.length).to.be.at.least(3);
    const { userKey } = await newAccount();
    const script = ['set -euo pipefail', ...first, 'echo "--- worked examples"', ...examples].join('\n');
    // The test platform's AI provider is a local server: it answers the agent's turns with this.
    harness().ai.script(...Array.from({ length: 4 }, () => ({ content: 'Hello, I am Helper.' })));
    // Asynchronously: the API answering the commands runs in this process.
    const result = await new Promise<{ status: number; stdout: string; stderr: string }>((resolve) =>
      execFile(
        'bash',
        ['-c', script],
        { timeout: 120_000, env: { PATH: process.env.PATH, HOME: process.env.HOME, KEY: userKey, BASE: harness().baseUrl } },
        (error, stdout, stderr) => resolve({ status: error ? ((error.code as number | undefined) ?? -1) : 0, stdout, stderr }),
      ),
    );
    harness().ai.script();
    expect(result.status, `${result.stdout}\n${result.stderr}`).to.equal(0);
    // What a reader is told to expect: the row the run wrote, a successful run, the agent's answer, the examples' ends.
    expect(result.stdout).to.include('"Email": "ada@example.com"');
    expect(result.stdout).to.match(/"successful": true/);
    expect(result.stdout).to.match(/"ACTIVE"/);
    expect(result.stdout).to.include('Hello, I am Helper.');
    expect(result.stdout).to.include('--- worked examples');
    expect(result.stdout).to.include('grace@example.com');
    expect(result.stdout).to.match(/"ENDED"/);
  });
});
