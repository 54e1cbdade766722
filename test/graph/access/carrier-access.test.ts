import { describe, expect, it } from 'vitest';
import { createCarrierAccess, replaceAccessPolicy } from '../../../src/graph/access/index.ts';
import type { CarrierPrincipal } from '../../../src/graph/carrier/index.ts';
import { openEngine } from '../engine/helpers.ts';
import { TEAM_POLICY, seedTeams } from './fixture.ts';

const who = (subject: string, groups: string[], scopes = ['kg:read']): CarrierPrincipal => ({ subject, scopes, groups });

describe('createCarrierAccess (the carrier\'s access port)', () => {
  it('null when denied; equal keys exactly for principals the rules cannot tell apart; a new key after a policy edit or a new group', async () => {
    const engine = await openEngine();
    try {
      await seedTeams(engine, 'g');
      const access = createCarrierAccess(engine);
      expect(access.visibility(who('a', ['red']), 'g')).toBeNull();
      expect(access.visibility(who('root', [], ['kg:admin']), 'g')).toBe('all');
      expect(access.visibility(who('root', [], ['kg:admin']), 'missing')).toBe('all');
      expect(access.visibility(who('a', ['red']), 'missing')).toBeNull();

      await replaceAccessPolicy(engine, 'g', TEAM_POLICY);
      const red1 = access.visibility(who('a', ['red']), 'g');
      const red2 = access.visibility(who('b', ['red']), 'g');
      const blue = access.visibility(who('c', ['blue']), 'g');
      const both = access.visibility(who('a', ['red', 'blue']), 'g');
      expect(red1).not.toBeNull();
      expect(red1).toBe(red2);
      expect(new Set([red1, blue, both]).size).toBe(3);
      expect(access.visibility(who('e', ['green']), 'g')).toBeNull();

      await replaceAccessPolicy(engine, 'g', { ...TEAM_POLICY, rows: { ...TEAM_POLICY.rows, Topic: true } });
      expect(access.visibility(who('a', ['red']), 'g')).not.toBe(red1);
    } finally {
      await engine.close();
    }
  });
});

describe('restrictionFor (the subscription executor\'s restrict option)', () => {
  it('shows a carrier principal its rows, an admin every row, a denied one none', async () => {
    const { restrictionFor } = await import('../../../src/graph/access/index.ts');
    const engine = await openEngine();
    try {
      await seedTeams(engine, 'g');
      await replaceAccessPolicy(engine, 'g', TEAM_POLICY);
      const restrict = restrictionFor(engine);
      const ids = (p: CarrierPrincipal) => restrict(engine.view('g'), p).scan('Document').map((n) => n.id);
      expect(ids(who('a', ['red']))).toEqual(['d1', 'd3', 'd6']);
      expect(ids(who('b', ['blue']))).toEqual(['d2', 'd4']);
      expect(ids(who('root', [], ['kg:admin']))).toHaveLength(6);
      expect(ids(who('e', ['green']))).toEqual([]);
    } finally {
      await engine.close();
    }
  });
});
