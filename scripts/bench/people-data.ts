// The people-and-organisations graph shared by the GraphQL benchmarks: 20,000 Person nodes (name, age,
// active), 2,000 Organization nodes, five KNOWS edges per person and one WORKS_AT, from a fixed seed,
// so every side of a comparison holds the same data.
import { rng } from './seeded-random.ts';

export interface Person { id: string; name: string; age: number; active: boolean }
export interface Org { id: string; name: string }
export interface Data { people: Person[]; orgs: Org[]; knows: Map<string, string[]>; worksAt: Map<string, string> }

export const PEOPLE = 20_000;
export const ORGS = 2_000;
export const KNOWS_PER_PERSON = 5;

const personId = (i: number) => `p${String(i).padStart(8, '0')}`;
const orgId = (i: number) => `o${String(i).padStart(6, '0')}`;

export function generate(): Data {
  const r = rng(7);
  const people = Array.from({ length: PEOPLE }, (_, i) => ({ id: personId(i), name: `Person ${i}`, age: 18 + Math.floor(r() * 60), active: r() < 0.5 }));
  const orgs = Array.from({ length: ORGS }, (_, i) => ({ id: orgId(i), name: `Org ${i}` }));
  const knows = new Map<string, string[]>();
  for (const p of people) {
    const set = new Set<string>();
    while (set.size < KNOWS_PER_PERSON) {
      const j = Math.floor(r() * PEOPLE);
      if (personId(j) !== p.id) set.add(personId(j));
    }
    // The engine answers neighbours in id order; the hand-written side keeps the same order.
    knows.set(p.id, [...set].sort());
  }
  const worksAt = new Map(people.map((p) => [p.id, orgId(Math.floor(r() * ORGS))]));
  return { people, orgs, knows, worksAt };
}

/** The same data as JSON Lines for `toolgraph graph import` (docs/import.md): every node, then every edge. */
export function toJsonLines(data: Data): string {
  const lines: string[] = [];
  for (const p of data.people) lines.push(JSON.stringify({ label: 'Person', id: p.id, props: { name: p.name, age: p.age, active: p.active } }));
  for (const o of data.orgs) lines.push(JSON.stringify({ label: 'Organization', id: o.id, props: { name: o.name } }));
  for (const [src, tgts] of data.knows) for (const tgt of tgts) lines.push(JSON.stringify({ src, tgt, type: 'KNOWS' }));
  for (const [src, tgt] of data.worksAt) lines.push(JSON.stringify({ src, tgt, type: 'WORKS_AT' }));
  return `${lines.join('\n')}\n`;
}
