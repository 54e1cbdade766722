// A reader for the part of Gherkin the openCypher TCK's feature files use: Feature, Background,
// Scenario, Scenario Outline with Examples tables, steps with a doc string ("""...""") or a table.
// Outlines are expanded here, one scenario per Examples row, with <name> placeholders filled in.

/** One step: its keyword-less text, and the doc string or table under it. */
export interface Step {
  readonly text: string;
  readonly docString: string | null;
  readonly table: readonly (readonly string[])[] | null;
  readonly line: number;
}

export interface Scenario {
  /** The feature file's path under the features folder, with `/` separators. */
  readonly file: string;
  readonly feature: string;
  /** The scenario's title as written (placeholders of an outline left as they are). */
  readonly name: string;
  /** 1-based row of the outline's Examples tables (counted across them), or null for a plain scenario. */
  readonly example: number | null;
  readonly line: number;
  /** Background steps first, then the scenario's own. */
  readonly steps: readonly Step[];
}

/** The stable key of a scenario: file, title and example row. */
export function scenarioKey(s: Pick<Scenario, 'file' | 'name' | 'example'>): string {
  return `${s.file}: ${s.name}${s.example === null ? '' : ` #${s.example}`}`;
}

const STEP = /^(Given|When|Then|And|But)\s+(.*)$/;

/** Cells of a table row `| a | b \| c |`: `\|` is a pipe inside a cell, `\\` a backslash. */
export function tableCells(line: string): string[] {
  const body = line.trim();
  const cells: string[] = [];
  let cell = '';
  for (let i = 1; i < body.length; i++) {
    const c = body[i]!;
    if (c === '\\' && (body[i + 1] === '|' || body[i + 1] === '\\')) {
      cell += body[i + 1];
      i++;
    } else if (c === '|') {
      cells.push(cell.trim());
      cell = '';
    } else cell += c;
  }
  return cells;
}

interface Block {
  kind: 'background' | 'scenario' | 'outline';
  name: string;
  line: number;
  steps: Step[];
  examples: string[][][];
}

function fill(text: string, header: readonly string[], row: readonly string[]): string {
  return text.replace(/<([^<>\s]+)>/g, (whole, name: string) => {
    const at = header.indexOf(name);
    return at < 0 ? whole : row[at]!;
  });
}

/** Parses one feature file's text into its scenarios (outlines expanded). */
export function parseFeature(file: string, text: string): Scenario[] {
  const lines = text.split(/\r?\n/);
  let feature = '';
  const blocks: Block[] = [];
  let block: Block | null = null;
  let inExamples = false;
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!;
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith('@')) continue;
    const head = /^(Feature|Background|Scenario Outline|Scenario Template|Scenario|Examples):\s*(.*)$/.exec(line);
    if (head !== null) {
      const [, keyword, title] = head;
      if (keyword === 'Feature') feature = title!;
      else if (keyword === 'Examples') {
        if (block === null || block.kind !== 'outline') throw new Error(`${file}:${i + 1}: Examples outside a Scenario Outline`);
        block.examples.push([]);
        inExamples = true;
      } else {
        const kind = keyword === 'Background' ? 'background' : keyword === 'Scenario' ? 'scenario' : 'outline';
        block = { kind, name: title!, line: i + 1, steps: [], examples: [] };
        blocks.push(block);
        inExamples = false;
      }
      continue;
    }
    if (block === null) continue; // the feature's description
    if (line.startsWith('|')) {
      if (inExamples) {
        block.examples.at(-1)!.push(tableCells(line));
        continue;
      }
      const step = block.steps.at(-1);
      if (step === undefined) throw new Error(`${file}:${i + 1}: a table before any step`);
      const table = (step.table ?? []) as string[][];
      table.push(tableCells(line));
      block.steps[block.steps.length - 1] = { ...step, table };
      continue;
    }
    if (line.startsWith('"""')) {
      const indent = raw.indexOf('"""');
      const body: string[] = [];
      for (i++; i < lines.length && lines[i]!.trim() !== '"""'; i++) {
        const l = lines[i]!;
        // Lines lose the opening quotes' indentation (only whitespace is removed).
        let cut = 0;
        while (cut < indent && (l[cut] === ' ' || l[cut] === '\t')) cut++;
        body.push(l.slice(cut));
      }
      const step = block.steps.at(-1);
      if (step === undefined) throw new Error(`${file}:${i + 1}: a doc string before any step`);
      block.steps[block.steps.length - 1] = { ...step, docString: body.join('\n') };
      continue;
    }
    const step = STEP.exec(line);
    if (step === null) throw new Error(`${file}:${i + 1}: cannot read ${JSON.stringify(line)}`);
    block.steps.push({ text: step[2]!, docString: null, table: null, line: i + 1 });
  }
  const background = blocks.find((b) => b.kind === 'background')?.steps ?? [];
  const out: Scenario[] = [];
  for (const b of blocks) {
    if (b.kind === 'scenario') out.push({ file, feature, name: b.name, example: null, line: b.line, steps: [...background, ...b.steps] });
    if (b.kind !== 'outline') continue;
    let n = 0;
    for (const table of b.examples) {
      const [header, ...rows] = table;
      if (header === undefined) continue;
      for (const row of rows) {
        n++;
        const steps = b.steps.map((s) => ({
          ...s,
          text: fill(s.text, header, row),
          docString: s.docString === null ? null : fill(s.docString, header, row),
          table: s.table === null ? null : s.table.map((r) => r.map((c) => fill(c, header, row))),
        }));
        out.push({ file, feature, name: b.name, example: n, line: b.line, steps: [...background, ...steps] });
      }
    }
  }
  return out;
}
