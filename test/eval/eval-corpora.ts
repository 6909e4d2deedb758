/**
 * The public corpora of `npm run eval:knowledge`: Debian documentation packages, fetched with `apt-get download` and
 * unpacked with `dpkg-deb -x` into `.eval/corpora/<package>` (git-ignored) the first time, so a fresh machine with
 * apt runs the evaluation as it is. Each corpus is the package's HTML pages under one folder, titled by their path in
 * it (`sql-vacuum.html`, `library/json.html`): the questions name the page that answers.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

export interface Corpus {
  /** The Debian package, and the questions' file name (`test/eval/questions/<package>.json`). */
  package: string;
  /** The folder of its HTML pages inside the package. */
  root: string;
  /** Pages of that folder left out (indexes, release notes, the C API: not what a user asks about). */
  skip: RegExp;
}

export const CORPORA: Corpus[] = [
  { package: 'postgresql-doc-15', root: 'usr/share/doc/postgresql-doc-15/html', skip: /^(bookindex|release-\d|index)\b/ },
  { package: 'git-doc', root: 'usr/share/doc/git-doc', skip: /^(RelNotes|technical\/|index)/ },
  {
    package: 'python3.11-doc',
    root: 'usr/share/doc/python3.11/html',
    skip: /^(genindex|py-modindex|search|contents|index|copyright|license|bugs|about|download|_|c-api|distutils|extending|whatsnew|install\/|distributing)/,
  },
];

/** The corpus's pages (path under its root, bytes), fetching and unpacking the package when it is not here yet. */
export function corpusPages(dir: string, corpus: Corpus): { path: string; bytes: Buffer }[] {
  const unpacked = join(dir, corpus.package);
  if (!existsSync(join(unpacked, corpus.root))) {
    mkdirSync(unpacked, { recursive: true });
    execFileSync('apt-get', ['download', corpus.package], { cwd: dir, stdio: ['ignore', 'ignore', 'inherit'] });
    const deb = readdirSync(dir).find((f) => f.startsWith(`${corpus.package}_`) && f.endsWith('.deb'));
    if (!deb) throw new Error(`apt-get download ${corpus.package} left no .deb in ${dir}`);
    execFileSync('dpkg-deb', ['-x', join(dir, deb), unpacked]);
  }
  const root = join(unpacked, corpus.root);
  const pages: { path: string; bytes: Buffer }[] = [];
  const walk = (folder: string) => {
    for (const name of readdirSync(folder).sort()) {
      const path = join(folder, name);
      const stat = statSync(path, { throwIfNoEntry: false });
      if (stat?.isDirectory()) walk(path);
      else if (stat && name.endsWith('.html') && !corpus.skip.test(relative(root, path)))
        pages.push({ path: relative(root, path), bytes: readFileSync(path) });
    }
  };
  walk(root);
  return pages;
}

export interface Question {
  id: string;
  kind: 'keyword' | 'paraphrase';
  split: 'dev' | 'test';
  question: string;
  answers: { page: string; text: string }[];
}

export function questionsOf(file: string): Question[] {
  return (JSON.parse(readFileSync(file, 'utf8')) as { questions: Question[] }).questions;
}
