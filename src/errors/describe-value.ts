/**
 * How every error message shows a value that came in: the value itself when it is short, else its
 * kind and size, so messages stay short and never echo a large input back. The one helper for all
 * areas (engine, dispatch, catalogue, manifest validation).
 */
const MAX_SHOWN = 80;

export function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  switch (typeof value) {
    case 'string': {
      const length = [...value].length;
      return length <= MAX_SHOWN ? JSON.stringify(value) : `a string of ${length} characters`;
    }
    case 'number':
    case 'boolean':
      return String(value);
    case 'bigint':
      return `bigint ${value}`;
    case 'object':
      if (Array.isArray(value)) return `a list of ${value.length} item${value.length === 1 ? '' : 's'}`;
      return 'an object';
    default:
      return `a ${typeof value}`;
  }
}
