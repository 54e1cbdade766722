/** The functions of the subset, by lower-cased name: arity and whether they aggregate rows. */
export interface FunctionSpec {
  readonly aggregate: boolean;
  readonly minArgs: number;
  readonly maxArgs: number;
}

const scalar = (minArgs = 1, maxArgs = minArgs): FunctionSpec => ({ aggregate: false, minArgs, maxArgs });
const aggregate: FunctionSpec = { aggregate: true, minArgs: 1, maxArgs: 1 };

const FUNCTIONS: Readonly<Record<string, FunctionSpec>> = {
  count: aggregate,
  collect: aggregate,
  sum: aggregate,
  avg: aggregate,
  min: aggregate,
  max: aggregate,
  id: scalar(),
  labels: scalar(),
  type: scalar(),
  keys: scalar(),
  properties: scalar(),
  size: scalar(),
  coalesce: scalar(1, 255),
  tolower: scalar(),
  toupper: scalar(),
  trim: scalar(),
  tostring: scalar(),
  tointeger: scalar(),
  tofloat: scalar(),
  abs: scalar(),
  head: scalar(),
  last: scalar(),
};

export function functionSpec(lowerName: string): FunctionSpec | undefined {
  return Object.hasOwn(FUNCTIONS, lowerName) ? FUNCTIONS[lowerName] : undefined;
}
