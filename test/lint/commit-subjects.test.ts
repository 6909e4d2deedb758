/**
 * The commit rules of docs/contributing.md, as far as a machine can hold them: every commit since the rules were
 * written has a subject of at most 72 characters (it says what changed; the body says why). A clone without the
 * commit the rules start at (a shallow one) holds the commits it has to them.
 */
import { execFileSync } from 'node:child_process';
import { expect } from 'chai';
import { projectRoot } from '../setup/harness.js';

/** The last commit before the rules: its subjects are history. */
const RULES_START = 'ae55962';
const MAX_SUBJECT = 72;

const git = (...args: string[]) => execFileSync('git', args, { cwd: projectRoot, encoding: 'utf8' }).trim();

describe('commit subjects', () => {
  it(`are at most ${MAX_SUBJECT} characters since the commit rules were written`, () => {
    let range = 'HEAD';
    try {
      git('cat-file', '-e', `${RULES_START}^{commit}`);
      range = `${RULES_START}..HEAD`;
    } catch {
      // A shallow clone without the start: every commit it has is newer.
    }
    const subjects = git('log', '--format=%s', range).split('\n').filter(Boolean);
    const long = subjects.filter((s) => s.length > MAX_SUBJECT).map((s) => `${s.length}: ${s}`);
    expect(long, long.join('\n')).to.deep.equal([]);
  });
});
