import { describe, expect, it } from 'vitest';
import { prepareCypher } from '../../../src/graph/cypher/index.ts';
import { failure } from '../../support/toolgraph-failure.ts';

describe('type checks before a statement runs', () => {
  it.each(['RETURN 123 AND true', "RETURN false OR 'foo'", 'RETURN [] XOR true', 'RETURN NOT {}', 'MATCH (n) WHERE n.x = 1 AND 1.5 RETURN n'])('refuses a non-boolean literal operand of a boolean operator: %s', async (text) => {
    const error = await failure(Promise.resolve().then(() => prepareCypher(text)));
    expect(error.code).toBe('TG_CYPHER_SYNTAX');
    expect(error.message).toContain('expects Boolean operands');
  });
  it('leaves null, booleans and expressions to run time', () => {
    for (const text of ['RETURN null AND true', 'RETURN true OR false', 'MATCH (n) WHERE n.x AND n.y RETURN n', 'RETURN NOT null']) expect(() => prepareCypher(text)).not.toThrow();
  });
});
