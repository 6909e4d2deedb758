/**
 * CONDITIONAL_ROUTING's rules without AI (`useAi: false`): an interpolated expression is `left operator right`
 * with one of `==`, `!=`, `>=`, `<=`, `>`, `<`, `contains`, `not contains` (numbers compare as numbers when both
 * sides are numbers, text case-insensitively), or a single value, which holds unless it is empty, `false`, `0`,
 * `null` or `undefined`.
 */
const OPERATORS = [' not contains ', ' contains ', '==', '!=', '>=', '<=', '>', '<'] as const;

const FALSY = new Set(['', 'false', '0', 'null', 'undefined', 'no']);

const unquote = (s: string) => s.trim().replace(/^(["'])(.*)\1$/, '$2');

export function plainConditionHolds(expression: string): boolean {
  for (const operator of OPERATORS) {
    const at = expression.indexOf(operator);
    if (at < 0) continue;
    const left = unquote(expression.slice(0, at));
    const right = unquote(expression.slice(at + operator.length));
    const [a, b] = [Number(left), Number(right)];
    const numeric = left !== '' && right !== '' && Number.isFinite(a) && Number.isFinite(b);
    const order = numeric ? Math.sign(a - b) : left.toLowerCase().localeCompare(right.toLowerCase());
    switch (operator) {
      case ' contains ':
        return left.toLowerCase().includes(right.toLowerCase());
      case ' not contains ':
        return !left.toLowerCase().includes(right.toLowerCase());
      case '==':
        return order === 0;
      case '!=':
        return order !== 0;
      case '>=':
        return order >= 0;
      case '<=':
        return order <= 0;
      case '>':
        return order > 0;
      case '<':
        return order < 0;
    }
  }
  return !FALSY.has(unquote(expression).toLowerCase());
}
