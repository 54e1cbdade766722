// The TCK's test procedures: `there exists a procedure test.my.proc(in :: INTEGER?) :: (out :: STRING?):`
// with a table whose columns are the inputs then the outputs. Calling it yields, in table order, the
// outputs of every row whose input columns equal the arguments (null equals null, numbers by value).
import type { Procedure, ProcedureField, ProcedureType, ProcedureValue } from '../../src/graph/cypher/index.ts';
import { parseTckValue, tckToJson } from './values.ts';

const STEP = /^there exists a procedure ([\w.]+)\((.*)\)\s*::\s*\((.*)\)\s*:$/;
const FIELD = /^(\w+)\s*::\s*([A-Z]+\??)$/;

function fields(text: string, where: string): ProcedureField[] {
  if (text.trim() === '') return [];
  return text.split(',').map((part) => {
    const match = FIELD.exec(part.trim());
    if (match === null) throw new Error(`cannot read the field ${JSON.stringify(part.trim())} of ${where}`);
    return { name: match[1]!, type: match[2]! as ProcedureType };
  });
}

/** Whether two values are the same value: how a table row's inputs are matched to the arguments. */
function same(a: ProcedureValue, b: ProcedureValue): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** Whether a step declares a test procedure. */
export function declaresProcedure(text: string): boolean {
  return text.startsWith('there exists a procedure');
}

/** The procedure a `there exists a procedure …:` step declares, its rows the step's table. */
export function tckProcedure(text: string, table: readonly (readonly string[])[] | null): Procedure {
  const step = STEP.exec(text);
  if (step === null) throw new Error(`cannot read the procedure declaration ${JSON.stringify(text)}`);
  const [, name, inputs, outputs] = step;
  const parameters = fields(inputs!, name!);
  const results = fields(outputs!, name!);
  const [header = [], ...body] = (table ?? []).filter((row) => row.length > 0);
  const expected = [...parameters, ...results].map((f) => f.name);
  if (body.length > 0 || header.length > 0) {
    if (header.join(',') !== expected.join(',')) throw new Error(`the table of ${name} has the columns ${header.join(', ')}, not ${expected.join(', ')}`);
  }
  const rows = body.map((row) => row.map((cell) => tckToJson(parseTckValue(cell)) as ProcedureValue));
  const n = parameters.length;
  return {
    name: name!,
    description: 'a TCK test procedure (its rows are the scenario\'s table)',
    parameters,
    outputs: results,
    *rows(args) {
      for (const row of rows) if (args.every((arg, i) => same(arg, row[i]!))) yield row.slice(n);
    },
  };
}
