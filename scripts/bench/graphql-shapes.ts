// The three GraphQL request shapes of the benchmarks (over the people graph of people-data.ts):
// a point read, a filtered page with two nested steps, and a 100-row page with two nested steps.
export const SHAPES = {
  byId: '{ Person(id: "p00004242") { id name age } }',
  filtered20: '{ Person(first: 20, active: true) { name KNOWS(first: 3) { name WORKS_AT { name } } } }',
  deep100: '{ Person(first: 100) { id name age KNOWS(first: 3) { name age WORKS_AT { name } } } }',
} as const;
