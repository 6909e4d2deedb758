import { expect } from 'chai';
import { attachment, parseRange } from '../../api/http-download.js';
import { cleanFileName, isAllowedType } from '../../api/multipart-upload.js';

describe('download ranges, file names and allowed file types', () => {
  it('reads one byte range, ignores what RFC 9110 lets a server ignore, and spots ranges beyond the end', () => {
    expect(parseRange('bytes=0-0', 10)).to.deep.equal({ start: 0, end: 0 });
    expect(parseRange('bytes=2-', 10)).to.deep.equal({ start: 2, end: 9 });
    expect(parseRange('bytes=3-100', 10)).to.deep.equal({ start: 3, end: 9 });
    expect(parseRange('bytes=-4', 10)).to.deep.equal({ start: 6, end: 9 });
    expect(parseRange('bytes=-40', 10)).to.deep.equal({ start: 0, end: 9 });
    for (const ignored of [undefined, '', 'items=0-1', 'bytes=0-1,4-5', 'bytes=5-2', 'bytes=-', 'bytes=a-b']) {
      expect(parseRange(ignored, 10), String(ignored)).to.equal(undefined);
    }
    expect(parseRange('bytes=10-', 10)).to.equal('unsatisfiable');
    expect(parseRange('bytes=-0', 10)).to.equal('unsatisfiable');
    expect(parseRange('bytes=0-', 0)).to.equal('unsatisfiable');
  });

  it('gives every name an ASCII fallback and its exact UTF-8 form', () => {
    const header = attachment('Ré "sumé" 100%\\日本.pdf');
    expect(header).to.match(/^attachment; filename="[\x20-\x7e]+"; filename\*=UTF-8''[A-Za-z0-9%._~!-]+$/);
    expect(/filename="([^"]*)"/.exec(header)![1]).to.equal('R_ _sum__ 100____.pdf');
    expect(decodeURIComponent(/filename\*=UTF-8''(.+)$/.exec(header)![1]!)).to.equal('Ré "sumé" 100%\\日本.pdf');
    expect(attachment("it's (1).txt")).to.include("filename*=UTF-8''it%27s%20%281%29.txt");
  });

  it('matches extensions and media types, wildcards included, case-insensitively', () => {
    expect(isAllowedType(['pdf'], 'Deal.PDF', 'application/octet-stream')).to.equal(true);
    expect(isAllowedType(['.csv'], 'a.csv', 'text/csv')).to.equal(true);
    expect(isAllowedType(['image/*'], 'scan', 'image/png')).to.equal(true);
    expect(isAllowedType(['image/png'], 'scan.jpg', 'image/jpeg')).to.equal(false);
    expect(isAllowedType(['pdf'], 'pdf', 'application/pdf')).to.equal(false);
    expect(cleanFileName('../../etc/passwd')).to.equal('passwd');
    expect(cleanFileName('C:\\Users\\me\\a\u0000b.txt')).to.equal('ab.txt');
    expect(cleanFileName('   ')).to.equal('file');
  });
});
