/**
 * `{NAME}` interpolation of node data (SPEC.md, Variables and interpolation), pure.
 *
 * A reference is `{` + a name + `}`; the name is matched case-sensitively and exactly (no trimming). It resolves,
 * in this order, to: the built-in `{trigger_payload}`; a declared variable (of the automation or agent); a node's output by node id;
 * a node's output by alias; a loop variable `{<loopNodeId or alias>.item|index|length}` of an active loop. A name
 * may go on with a path into the JSON value it names, with the path rules of API captures (`lib/runtime/path.ts`):
 * `{trigger_payload.customer.email}`, `{lookup.items[0].id}`, `{loop.item.id}`. Values are rendered by
 * `toVariableString` (objects and arrays as JSON), except that a field made of exactly one reference keeps the
 * value's JSON type (`"{trigger_payload.qty}"` with qty 42 becomes the number 42).
 *
 * A reference that does not resolve, or whose value is null/undefined (an unset variable, a node without output),
 * is left exactly as written, so the problem shows in what the node sends instead of silently becoming empty.
 * Replacement is one pass: text inserted from a value is never interpolated again.
 */
import { extractPath, parseJsonValue, toVariableString } from './path.js';

/** The loop variables of one active ITERATION. */
export interface LoopVariables {
  /** The current item, as it is in the array. */
  item: unknown;
  /** Zero-based position of the current item. */
  index: number;
  /** Number of items of the loop. */
  length: number;
}

/** What `{NAME}` can refer to while a node runs. */
export interface Scope {
  /** Declared variables by name (captured values are strings; unset ones are absent). */
  variables: Readonly<Record<string, unknown>>;
  /** Outputs of the nodes executed so far, by node id (`{<nodeId>}`). */
  nodeOutputs: Readonly<Record<string, unknown>>;
  /** Node ids by alias, so `{alias}` and `{alias.item}` resolve like the node id. */
  aliases?: Readonly<Record<string, string>>;
  /** The delivered trigger event: `{trigger_payload}`. */
  triggerPayload?: unknown;
  /** Active loops by ITERATION node id. */
  loops?: Readonly<Record<string, LoopVariables>>;
}

const LOOP_FORM = /^(.+)\.(item|index|length)$/;

/** The raw value a name resolves to (`found: false` when nothing of that name is in scope). */
function lookupName(scope: Scope, name: string): { found: true; value: unknown } | { found: false } {
  if (name === 'trigger_payload') return scope.triggerPayload === undefined ? { found: false } : { found: true, value: scope.triggerPayload };
  if (Object.hasOwn(scope.variables, name)) return { found: true, value: scope.variables[name] };
  if (Object.hasOwn(scope.nodeOutputs, name)) return { found: true, value: scope.nodeOutputs[name] };
  const aliases = scope.aliases ?? {};
  if (Object.hasOwn(aliases, name) && Object.hasOwn(scope.nodeOutputs, aliases[name]!)) {
    return { found: true, value: scope.nodeOutputs[aliases[name]!] };
  }
  const loopForm = LOOP_FORM.exec(name);
  const loops = scope.loops ?? {};
  if (loopForm) {
    const [, ref, field] = loopForm as unknown as [string, string, keyof LoopVariables];
    const loopId = Object.hasOwn(loops, ref) ? ref : Object.hasOwn(aliases, ref) ? aliases[ref]! : undefined;
    if (loopId !== undefined && Object.hasOwn(loops, loopId)) return { found: true, value: loops[loopId]![field] };
  }
  return { found: false };
}

/**
 * The value a reference names: a name `lookupName` resolves exactly, else the longest leading name that resolves
 * followed by a path into its value (`a.b.c` tries `a.b` with path `c`, then `a` with `b.c`). JSON text held by a
 * variable is parsed before stepping into it.
 */
export function lookup(scope: Scope, reference: string): { found: true; value: unknown } | { found: false } {
  const exact = lookupName(scope, reference);
  if (exact.found) return exact;
  for (let i = reference.length - 1; i > 0; i -= 1) {
    const c = reference[i];
    if (c !== '.' && c !== '[') continue;
    const base = lookupName(scope, reference.slice(0, i));
    if (!base.found) continue;
    const inside = extractPath(parseJsonValue(base.value), reference.slice(c === '.' ? i + 1 : i));
    return inside.found ? inside : { found: false };
  }
  return { found: false };
}

/** `text` with every resolvable `{NAME}` replaced by the variable's string value; other braces stay as written. */
export function interpolate(text: string, scope: Scope): string {
  return text.replace(/\{([^{}]+)\}/g, (whole, name: string) => {
    const ref = lookup(scope, name);
    return (ref.found ? toVariableString(ref.value) : undefined) ?? whole;
  });
}

/**
 * A field's value: exactly one reference whose value is not null keeps that value as it is (a number stays a
 * number, an object an object); any other text is `interpolate`d into a string.
 */
export function interpolateValue(text: string, scope: Scope): unknown {
  const single = /^\{([^{}]+)\}$/.exec(text);
  if (single) {
    const ref = lookup(scope, single[1]!);
    if (ref.found && ref.value !== null && ref.value !== undefined) return ref.value;
  }
  return interpolate(text, scope);
}

/** Every string inside a value (array items, object values; never object keys) interpolated. */
function interpolateDeep(value: unknown, scope: Scope): unknown {
  if (typeof value === 'string') return interpolateValue(value, scope);
  if (Array.isArray(value)) return value.map((item) => interpolateDeep(item, scope));
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, interpolateDeep(item, scope)]));
  }
  return value;
}

/** `value` with the field at `steps` interpolated; `name[]` steps go through every item of an array. */
function interpolateAt(value: unknown, steps: readonly string[], scope: Scope): unknown {
  if (steps.length === 0) return interpolateDeep(value, scope);
  const [first, ...rest] = steps as [string, ...string[]];
  const each = first.endsWith('[]');
  const key = each ? first.slice(0, -2) : first;
  if (typeof value !== 'object' || value === null || Array.isArray(value) || !Object.hasOwn(value, key)) return value;
  const record = value as Record<string, unknown>;
  const field = record[key];
  if (each && !Array.isArray(field)) return value;
  const next = each ? (field as unknown[]).map((item) => interpolateAt(item, rest, scope)) : interpolateAt(field, rest, scope);
  return { ...record, [key]: next };
}

/**
 * A copy of node `data` with exactly the listed fields interpolated; the input is not changed. A field path is
 * dot-separated, `name[]` stepping into every item of an array (`headers[].value`). The field found at a path is
 * interpolated whole: a string, or every string inside an object or array (the values of `rowData`). Missing
 * fields and fields of another shape are left alone.
 */
export function interpolateFields<T>(data: T, fields: readonly string[], scope: Scope): T {
  let result: unknown = data;
  for (const field of fields) result = interpolateAt(result, field.split('.'), scope);
  return result as T;
}
