/**
 * Path extraction and variable rendering of the automation runtime (SPEC.md, Variables and interpolation), pure.
 *
 * A path is simple property access, not JSONPath: dot notation for nested keys, `[n]` for array indices (`[0]` is
 * the same step as `.0`), an optional leading dot, and the empty path for the whole value. `$`, `*`, `[?(…)]` and
 * other JSONPath syntax carry no meaning: they are read as literal keys, which JSON bodies do not hold.
 */

/** The outcome of `extractPath`: a value was reached, or some step was missing or null. */
export type PathResult = { found: true; value: unknown } | { found: false };

const NOT_FOUND: PathResult = { found: false };

/** Array indices written the canonical way (`0`, `12`; not `01`, `-1`, `1.5`). */
const INDEX = /^(?:0|[1-9]\d*)$/;

/**
 * The steps of a path: `.a.b[0]`, `a.b.0` and `a.b[0]` all give `['a', 'b', '0']`. A `[` that does not open a
 * `[digits]` index is an ordinary character of the key (so `items[*]` is the literal key `items[*]`).
 */
export function parsePath(path: string): string[] {
  const text = path.trim().replace(/^\./, '');
  const steps: string[] = [];
  let key = '';
  // After `[n]` the next `.` only separates; elsewhere it ends a key, even an empty one (`a..b` has key '').
  let afterIndex = false;
  for (let i = 0; i < text.length;) {
    const index = text[i] === '[' ? /^\[(\d+)\]/.exec(text.slice(i)) : null;
    if (index) {
      if (key !== '') steps.push(key);
      steps.push(index[1]!);
      key = '';
      afterIndex = true;
      i += index[0].length;
    } else if (text[i] === '.') {
      if (!(afterIndex && key === '')) steps.push(key);
      key = '';
      afterIndex = false;
      i += 1;
    } else {
      key += text[i];
      afterIndex = false;
      i += 1;
    }
  }
  if (key !== '' || text.endsWith('.')) steps.push(key);
  return steps;
}

function step(value: unknown, key: string): PathResult {
  if (Array.isArray(value)) {
    if (!INDEX.test(key)) return NOT_FOUND;
    const index = Number(key);
    return index < value.length ? { found: true, value: value[index] } : NOT_FOUND;
  }
  if (typeof value === 'object' && value !== null && Object.hasOwn(value, key)) {
    return { found: true, value: (value as Record<string, unknown>)[key] };
  }
  return NOT_FOUND;
}

/**
 * The value at `path` inside `value`. A missing step, a step into a primitive, or a null/undefined value on the
 * way (the root and the last step included) gives `{ found: false }`; the empty path gives the whole value.
 */
export function extractPath(value: unknown, path: string): PathResult {
  let current = value;
  if (current === null || current === undefined) return NOT_FOUND;
  for (const key of parsePath(path)) {
    const next = step(current, key);
    if (!next.found || next.value === null || next.value === undefined) return NOT_FOUND;
    current = next.value;
  }
  return { found: true, value: current };
}

/**
 * A value as a variable holds it and as `{name}` renders it: objects and arrays as JSON, primitives as their
 * string value, and `undefined` for null/undefined (the variable stays unset).
 */
export function toVariableString(value: unknown): string | undefined {
  if (value === null || value === undefined) return undefined;
  if (typeof value === 'string') return value;
  if (typeof value === 'object') {
    try {
      return JSON.stringify(value);
    } catch {
      return String(value);
    }
  }
  return String(value);
}

/**
 * A string holding a JSON object or array parsed back into it (variables store captured objects as JSON); any
 * other value, or a string that is not such JSON, is returned as it is.
 */
export function parseJsonValue(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  const text = value.trim();
  if (!(text.startsWith('[') || text.startsWith('{'))) return value;
  try {
    return JSON.parse(text);
  } catch {
    return value;
  }
}
