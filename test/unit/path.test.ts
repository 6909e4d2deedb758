import { expect } from 'chai';
import { extractPath, parseJsonValue, parsePath, toVariableString } from '../../lib/runtime/path.js';

const body = {
  data: {
    items: [
      { id: 'a1', tags: ['x', 'y'], price: 0, active: false, note: null },
      {
        id: 'a2',
        tags: [],
        matrix: [
          [1, 2],
          [3, 4],
        ],
      },
    ],
    total: 2,
    '0': 'zero-key',
    $: 'dollar-key',
    'items[*]': 'star-key',
  },
  list: ['first', 'second'],
};

const found = (value: unknown) => ({ found: true, value });
const missing = { found: false };

describe('runtime path: extractPath', () => {
  it('follows dot notation into nested objects', () => {
    expect(extractPath(body, 'data.total')).to.deep.equal(found(2));
    expect(extractPath(body, 'data.items')).to.deep.equal(found(body.data.items));
  });

  it('reads array indices as [n] or .n, which are the same step', () => {
    expect(extractPath(body, 'data.items[1].id')).to.deep.equal(found('a2'));
    expect(extractPath(body, 'data.items.1.id')).to.deep.equal(found('a2'));
    expect(extractPath(body, 'data.items[0].tags[1]')).to.deep.equal(found('y'));
    expect(extractPath(body, 'data.items[1].matrix[1][0]')).to.deep.equal(found(3));
    expect(extractPath(body, 'data.items.1.matrix.1.0')).to.deep.equal(found(3));
    expect(extractPath(body.list, '[1]')).to.deep.equal(found('second'));
    expect(extractPath([[10, 20]], '[0][1]')).to.deep.equal(found(20));
  });

  it('accepts an optional leading dot and surrounding spaces', () => {
    expect(extractPath(body, '.data.total')).to.deep.equal(found(2));
    expect(extractPath(body, '.list[0]')).to.deep.equal(found('first'));
    expect(extractPath(body, '  data.total ')).to.deep.equal(found(2));
  });

  it('gives the whole value for the empty path (and a lone dot)', () => {
    expect(extractPath(body, '')).to.deep.equal(found(body));
    expect(extractPath(body, '.')).to.deep.equal(found(body));
    expect(extractPath('plain text', '')).to.deep.equal(found('plain text'));
    expect(extractPath(0, '')).to.deep.equal(found(0));
    expect(extractPath(false, '')).to.deep.equal(found(false));
  });

  it('keeps falsy values that are not null', () => {
    expect(extractPath(body, 'data.items[0].price')).to.deep.equal(found(0));
    expect(extractPath(body, 'data.items[0].active')).to.deep.equal(found(false));
    expect(extractPath({ s: '' }, 's')).to.deep.equal(found(''));
  });

  it('reports a missing step, an index out of range, or a step into a primitive as not found', () => {
    expect(extractPath(body, 'data.nope')).to.deep.equal(missing);
    expect(extractPath(body, 'data.nope.deeper')).to.deep.equal(missing);
    expect(extractPath(body, 'data.items[5].id')).to.deep.equal(missing);
    expect(extractPath(body, 'data.total.value')).to.deep.equal(missing);
    expect(extractPath(body, 'list[0].length')).to.deep.equal(missing);
    expect(extractPath(body, 'list[0][0]')).to.deep.equal(missing);
    expect(extractPath(body, 'list.length')).to.deep.equal(missing);
  });

  it('reports a null step, a null result and a null or undefined root as not found', () => {
    expect(extractPath(body, 'data.items[0].note')).to.deep.equal(missing);
    expect(extractPath(body, 'data.items[0].note.text')).to.deep.equal(missing);
    expect(extractPath({ a: undefined }, 'a')).to.deep.equal(missing);
    expect(extractPath(null, '')).to.deep.equal(missing);
    expect(extractPath(undefined, '')).to.deep.equal(missing);
    expect(extractPath(null, 'a')).to.deep.equal(missing);
  });

  it('is not JSONPath: $, wildcards and filters are literal keys', () => {
    expect(extractPath(body, '$.data.total')).to.deep.equal(missing);
    expect(extractPath(body, 'data.items[*].id')).to.deep.equal(missing);
    expect(extractPath(body, 'data.items[?(@.id == "a1")]')).to.deep.equal(missing);
    expect(extractPath(body, 'data..total')).to.deep.equal(missing);
    expect(extractPath(body, 'data.items[-1]')).to.deep.equal(missing);
    // literal keys of that spelling are found, as any other key
    expect(extractPath(body, 'data.$')).to.deep.equal(found('dollar-key'));
    expect(extractPath(body, 'data.items[*]')).to.deep.equal(found('star-key'));
  });

  it('reads [n] and .n on an object as the key "n"', () => {
    expect(extractPath(body, 'data[0]')).to.deep.equal(found('zero-key'));
    expect(extractPath(body, 'data.0')).to.deep.equal(found('zero-key'));
  });

  it('takes only canonical indices on arrays', () => {
    expect(extractPath(body, 'list.01')).to.deep.equal(missing);
    expect(extractPath(body, 'list[01]')).to.deep.equal(missing);
    expect(extractPath(body, 'list.1.0')).to.deep.equal(missing);
  });

  it('never reads inherited properties', () => {
    expect(extractPath({}, 'constructor')).to.deep.equal(missing);
    expect(extractPath({}, '__proto__')).to.deep.equal(missing);
    expect(extractPath({ a: {} }, 'a.toString')).to.deep.equal(missing);
  });
});

describe('runtime path: parsePath', () => {
  it('splits dots and indices into steps', () => {
    expect(parsePath('')).to.deep.equal([]);
    expect(parsePath('a')).to.deep.equal(['a']);
    expect(parsePath('.a.b[0].c')).to.deep.equal(['a', 'b', '0', 'c']);
    expect(parsePath('[0][1]')).to.deep.equal(['0', '1']);
    expect(parsePath('a.[2]')).to.deep.equal(['a', '2']);
    expect(parsePath('a[*]')).to.deep.equal(['a[*]']);
    expect(parsePath('a..b')).to.deep.equal(['a', '', 'b']);
    expect(parsePath('a.')).to.deep.equal(['a', '']);
    expect(parsePath('first name.x')).to.deep.equal(['first name', 'x']);
  });
});

describe('runtime path: toVariableString', () => {
  it('renders objects and arrays as JSON and primitives as their string value', () => {
    expect(toVariableString({ a: 1, b: [true, null] })).to.equal('{"a":1,"b":[true,null]}');
    expect(toVariableString([1, 'two'])).to.equal('[1,"two"]');
    expect(toVariableString([])).to.equal('[]');
    expect(toVariableString('text')).to.equal('text');
    expect(toVariableString('')).to.equal('');
    expect(toVariableString(42.5)).to.equal('42.5');
    expect(toVariableString(0)).to.equal('0');
    expect(toVariableString(false)).to.equal('false');
  });

  it('leaves null and undefined unset', () => {
    expect(toVariableString(null)).to.equal(undefined);
    expect(toVariableString(undefined)).to.equal(undefined);
  });
});

describe('runtime path: parseJsonValue', () => {
  it('parses strings holding a JSON object or array and leaves everything else', () => {
    expect(parseJsonValue('[1,2]')).to.deep.equal([1, 2]);
    expect(parseJsonValue(' {"a":[1]} ')).to.deep.equal({ a: [1] });
    expect(parseJsonValue('[not json')).to.equal('[not json');
    expect(parseJsonValue('42')).to.equal('42');
    expect(parseJsonValue('hello')).to.equal('hello');
    const value = { a: 1 };
    expect(parseJsonValue(value)).to.equal(value);
    expect(parseJsonValue(null)).to.equal(null);
  });
});
