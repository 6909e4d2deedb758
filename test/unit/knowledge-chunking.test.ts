/**
 * Chunking of knowledge documents and the words their full-text vectors are built from (`lib/knowledge`).
 */
import { expect } from 'chai';
import { chunkText, headingText, leadHeading, readable } from '../../lib/knowledge/chunking.js';
import { identifierWords, searchableText } from '../../lib/knowledge/search-text.js';

describe('knowledge chunking', () => {
  it('packs a short section with the subsections under it, never with its siblings, keeping the first section’s heading path', () => {
    const chunks = chunkText(
      ['# Lib', '## API', '### open(path)', 'Opens a file.', '#### path', 'A string.', '### close()', 'Closes it.', '## FAQ', 'None yet.'].join(
        '\n\n',
      ),
    );
    expect(chunks.map((c) => [c.headingPath, c.text])).to.deep.equal([
      [['Lib', 'API', 'open(path)'], 'Opens a file.\n\n#### path\n\nA string.'],
      [['Lib', 'API', 'close()'], 'Closes it.'],
      [['Lib', 'FAQ'], 'None yet.'],
    ]);
  });

  it('reads the first heading outside code as the document’s lead heading', () => {
    expect(leadHeading('Prev Up Home\n\n## VACUUM\n\nText.\n\n## Description')).to.equal('VACUUM');
    expect(leadHeading('```\n# a comment\n```\n\n# [dotenv](https://x) ![badge](b.svg)\n\n# Other')).to.equal('dotenv');
    expect(leadHeading('No heading at all.')).to.equal(undefined);
  });

  it('cuts a long section with overlap and packs no subsection into it', () => {
    const long = Array.from({ length: 40 }, (_, i) => `Sentence number ${i} is here.`).join(' ');
    const chunks = chunkText(`# A\n\n${long}\n\n## B\n\nShort.`, { maxChars: 400, overlapChars: 50 });
    expect(chunks.at(-1)).to.deep.equal({ position: chunks.length - 1, headingPath: ['A', 'B'], text: 'Short.' });
    expect(chunks.slice(0, -1).every((c) => c.headingPath.join() === 'A' && c.text.length <= 400)).to.equal(true);
    expect(chunks[0]!.text).to.contain(chunks[1]!.text.slice(0, 30)); // the overlap
  });

  it('reads headings without badges or links, and <summary> as a heading below the current one', () => {
    expect(headingText('dotenv [![NPM version](https://img.shields.io/npm/v/dotenv.svg)](https://www.npmjs.com/package/dotenv)')).to.equal('dotenv');
    expect(headingText('formidable [![npm version][npmv-img]][npmv-url] and [the docs](x.md) `code` **bold** snake_case')).to.equal(
      'formidable and the docs code bold snake_case',
    );
    const chunks = chunkText('# pkg\n\n## FAQ\n\n<details><summary>How do I use `import`?</summary><br/>\n\nLike this.\n\n</details>\n\nAfter.');
    expect(chunks.map((c) => c.headingPath)).to.deep.equal([
      ['pkg', 'FAQ', 'How do I use import?'],
      ['pkg', 'FAQ'],
    ]);
  });

  it('leaves images and link definitions out of prose, not out of code', () => {
    expect(readable('[![build][ci-img]][ci-url] ![logo](logo.png) <img src="x.png"> Fast.\n[ci-img]: https://ci/badge.svg')).to.equal('   Fast.\n');
    const [chunk] = chunkText('```md\n![kept](x.png)\n```');
    expect(chunk!.text).to.contain('![kept](x.png)');
  });

  it('indexes code identifiers as their words too, leaving URLs and version numbers alone', () => {
    expect(identifierWords('XMLHttpRequest')).to.deep.equal(['XML', 'Http', 'Request']);
    expect(searchableText("iconv.decode(buf) collectDefaultMetrics import 'dotenv/config' v18.0.0 https://a.io/fooBar")).to.equal(
      "iconv.decode iconv decode(buf) collectDefaultMetrics collect Default Metrics import 'dotenv/config dotenv config' v18.0.0 https://a.io/fooBar",
    );
  });
});
