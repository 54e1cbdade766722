// The TCK's notation for expected values (result cells, parameters): `1`, `1.0`, `'text'`, `true`,
// `null`, `[1, 2]`, `{a: 1}`, nodes `(:L {p: 1})`, relationships `[:T {p: 1}]` and paths
// `<(:A)-[:T]->(:B)>`.

export type TckValue =
  | { readonly kind: 'null' }
  | { readonly kind: 'boolean'; readonly value: boolean }
  | { readonly kind: 'integer'; readonly value: number }
  | { readonly kind: 'float'; readonly value: number }
  | { readonly kind: 'string'; readonly value: string }
  | { readonly kind: 'list'; readonly items: readonly TckValue[] }
  | { readonly kind: 'map'; readonly entries: ReadonlyMap<string, TckValue> }
  | { readonly kind: 'node'; readonly labels: readonly string[]; readonly props: ReadonlyMap<string, TckValue> }
  | { readonly kind: 'relationship'; readonly type: string; readonly props: ReadonlyMap<string, TckValue> }
  | { readonly kind: 'path'; readonly start: TckValue & { kind: 'node' }; readonly steps: readonly PathStep[] };

export interface PathStep {
  readonly rel: TckValue & { kind: 'relationship' };
  /** Whether the relationship points forward (`-[]->`) or back (`<-[]-`) along the path. */
  readonly forward: boolean;
  readonly node: TckValue & { kind: 'node' };
}

class Reader {
  pos = 0;
  readonly text: string;

  constructor(text: string) {
    this.text = text;
  }

  fail(what: string): never {
    throw new Error(`cannot read TCK value ${JSON.stringify(this.text)} at ${this.pos}: ${what}`);
  }

  skip(): void {
    while (this.pos < this.text.length && /\s/.test(this.text[this.pos]!)) this.pos++;
  }

  peek(): string {
    this.skip();
    return this.text[this.pos] ?? '';
  }

  eat(s: string): boolean {
    this.skip();
    if (this.text.startsWith(s, this.pos)) {
      this.pos += s.length;
      return true;
    }
    return false;
  }

  expect(s: string): void {
    if (!this.eat(s)) this.fail(`expected ${s}`);
  }

  name(): string {
    this.skip();
    if (this.text[this.pos] === '`') {
      const end = this.text.indexOf('`', this.pos + 1);
      if (end < 0) this.fail('unclosed `');
      const name = this.text.slice(this.pos + 1, end);
      this.pos = end + 1;
      return name;
    }
    const m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(this.text.slice(this.pos));
    if (m === null) this.fail('expected a name');
    this.pos += m[0].length;
    return m[0];
  }

  value(): TckValue {
    const c = this.peek();
    if (c === "'" || c === '"') return { kind: 'string', value: this.string(c) };
    if (c === '[') {
      const save = this.pos;
      this.pos++;
      if (this.peek() === ':') {
        this.pos = save;
        return this.relationship();
      }
      const items: TckValue[] = [];
      if (!this.eat(']')) {
        do items.push(this.value());
        while (this.eat(','));
        this.expect(']');
      }
      return { kind: 'list', items };
    }
    if (c === '{') return { kind: 'map', entries: this.map() };
    if (c === '(') return this.node();
    if (c === '<') return this.path();
    const rest = this.text.slice(this.pos);
    const word = /^[A-Za-z]+/.exec(rest)?.[0];
    if (word !== undefined) {
      this.pos += word.length;
      switch (word.toLowerCase()) {
        case 'null': return { kind: 'null' };
        case 'true': return { kind: 'boolean', value: true };
        case 'false': return { kind: 'boolean', value: false };
        case 'nan': return { kind: 'float', value: Number.NaN };
        case 'infinity': case 'inf': return { kind: 'float', value: Number.POSITIVE_INFINITY };
      }
      this.fail(`unknown word ${word}`);
    }
    const num = /^[-+]?(?:0x[0-9a-fA-F]+|0o[0-7]+|(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|Infinity|Inf)/.exec(rest)?.[0];
    if (num === undefined) this.fail('expected a value');
    this.pos += num.length;
    const negative = num.startsWith('-');
    const body = num.replace(/^[-+]/, '');
    if (/^inf/i.test(body)) return { kind: 'float', value: negative ? Number.NEGATIVE_INFINITY : Number.POSITIVE_INFINITY };
    if (/^0[xo]/i.test(body)) {
      const v = Number.parseInt(body.slice(2), body[1]!.toLowerCase() === 'x' ? 16 : 8);
      return { kind: 'integer', value: negative ? -v : v };
    }
    const isFloat = /[.eE]/.test(body);
    const v = Number(body);
    return { kind: isFloat ? 'float' : 'integer', value: negative ? -v : v };
  }

  string(quote: string): string {
    this.pos++;
    let out = '';
    for (;;) {
      const c = this.text[this.pos];
      if (c === undefined) this.fail('unclosed string');
      this.pos++;
      if (c === quote) return out;
      if (c !== '\\') {
        out += c;
        continue;
      }
      const e = this.text[this.pos++];
      switch (e) {
        case 'n': out += '\n'; break;
        case 't': out += '\t'; break;
        case 'r': out += '\r'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'u': out += String.fromCharCode(Number.parseInt(this.text.slice(this.pos, this.pos + 4), 16)); this.pos += 4; break;
        case undefined: return this.fail('unclosed string');
        default: out += e;
      }
    }
  }

  map(): Map<string, TckValue> {
    this.expect('{');
    const entries = new Map<string, TckValue>();
    if (this.eat('}')) return entries;
    do {
      const key = this.name();
      this.expect(':');
      entries.set(key, this.value());
    } while (this.eat(','));
    this.expect('}');
    return entries;
  }

  node(): TckValue & { kind: 'node' } {
    this.expect('(');
    const labels: string[] = [];
    while (this.eat(':')) labels.push(this.name());
    const props = this.peek() === '{' ? this.map() : new Map<string, TckValue>();
    this.expect(')');
    return { kind: 'node', labels, props };
  }

  relationship(): TckValue & { kind: 'relationship' } {
    this.expect('[');
    this.expect(':');
    const type = this.name();
    const props = this.peek() === '{' ? this.map() : new Map<string, TckValue>();
    this.expect(']');
    return { kind: 'relationship', type, props };
  }

  path(): TckValue {
    this.expect('<');
    const start = this.node();
    const steps: PathStep[] = [];
    for (;;) {
      if (this.eat('<-')) {
        const rel = this.relationship();
        this.expect('-');
        steps.push({ rel, forward: false, node: this.node() });
      } else if (this.eat('-')) {
        const rel = this.relationship();
        this.expect('->');
        steps.push({ rel, forward: true, node: this.node() });
      } else break;
    }
    this.expect('>');
    return { kind: 'path', start, steps };
  }
}

/** Parses one value in the TCK's notation. */
export function parseTckValue(text: string): TckValue {
  const r = new Reader(text);
  const v = r.value();
  r.skip();
  if (r.pos !== text.length) r.fail('text after the value');
  return v;
}

/** A parameter's JSON form (what `/dispatch` would receive); nodes, relationships and paths have none. */
export function tckToJson(v: TckValue): unknown {
  switch (v.kind) {
    case 'null': return null;
    case 'boolean': case 'integer': case 'float': case 'string': return v.value;
    case 'list': return v.items.map(tckToJson);
    case 'map': return Object.fromEntries([...v.entries].map(([k, item]) => [k, tckToJson(item)]));
    default: throw new Error(`a ${v.kind} cannot be a parameter`);
  }
}

/** The TCK notation of a value again (for failure messages). */
export function showTck(v: TckValue): string {
  const props = (p: ReadonlyMap<string, TckValue>) => (p.size === 0 ? '' : ` {${[...p].map(([k, x]) => `${k}: ${showTck(x)}`).join(', ')}}`);
  switch (v.kind) {
    case 'null': return 'null';
    case 'boolean': case 'integer': return String(v.value);
    case 'float': return Number.isInteger(v.value) ? v.value.toFixed(1) : String(v.value);
    case 'string': return `'${v.value}'`;
    case 'list': return `[${v.items.map(showTck).join(', ')}]`;
    case 'map': return `{${[...v.entries].map(([k, x]) => `${k}: ${showTck(x)}`).join(', ')}}`;
    case 'node': return `(${v.labels.map((l) => `:${l}`).join('')}${props(v.props)})`;
    case 'relationship': return `[:${v.type}${props(v.props)}]`;
    case 'path': return `<${showTck(v.start)}${v.steps.map((s) => (s.forward ? `-${showTck(s.rel)}->` : `<-${showTck(s.rel)}-`) + showTck(s.node)).join('')}>`;
  }
}
