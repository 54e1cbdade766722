import { describe, expect, it } from 'vitest';
import type { McpSession } from '../../src/tools/mcp-sessions.ts';
import { McpSessionTable } from '../../src/tools/mcp-sessions.ts';

/** Opens a session of `owner` in the table (admit, then register as the transport would). */
function open(table: McpSessionTable, owner: string, id: string): McpSession[] {
  const reservation = table.admit(owner);
  table.register(reservation, { id, owner, lastUsed: 0 } as unknown as McpSession);
  return [...reservation.evicted];
}

describe('McpSessionTable', () => {
  it('makes room from the caller\'s own least recently used sessions only', () => {
    const table = new McpSessionTable({ maxSessions: 4, maxSessionsPerSubject: 2 });
    open(table, 'a', 'a1');
    open(table, 'b', 'b1');
    open(table, 'b', 'b2');
    expect(table.use('b1', 'b', 1)?.id).toBe('b1');
    // b is at its own cap: b2, now its least recently used, makes room.
    expect(open(table, 'b', 'b3').map((s) => s.id)).toEqual(['b2']);
    open(table, 'a', 'a2');
    expect(table.size).toBe(4);
    // Full: c has nothing to give and is refused; a trades its own oldest.
    expect(() => table.admit('c')).toThrow(expect.objectContaining({ code: 'TG_RATE_LIMITED', details: { limit: 'mcpMaxSessions', max: 4, setting: 'TOOLGRAPH_MCP_MAX_SESSIONS', retryAfterSecs: 60 } }));
    expect(open(table, 'a', 'a3').map((s) => s.id)).toEqual(['a1']);
    expect(table.ids().sort()).toEqual(['a2', 'a3', 'b1', 'b3']);
    // Another owner's id answers nothing.
    expect(table.use('a2', 'b', 2)).toBeUndefined();
  });

  it('counts initializes still in flight, so concurrent ones cannot overshoot either cap', () => {
    const table = new McpSessionTable({ maxSessions: 3, maxSessionsPerSubject: 2 });
    const first = [table.admit('a'), table.admit('a')];
    expect(() => table.admit('a')).toThrow(expect.objectContaining({ details: { limit: 'mcpMaxSessionsPerSubject', max: 2, setting: 'TOOLGRAPH_MCP_MAX_SESSIONS_PER_SUBJECT', retryAfterSecs: 1 } }));
    const b = table.admit('b');
    expect(() => table.admit('c')).toThrow(expect.objectContaining({ details: expect.objectContaining({ limit: 'mcpMaxSessions' }) }));
    // A failed initialize gives its place back (once, however often it is released).
    table.release(b);
    table.release(b);
    table.release(first[1]!);
    expect(table.admit('c').evicted).toEqual([]);
    expect(table.admit('d').evicted).toEqual([]);
    expect(() => table.admit('e')).toThrow(expect.objectContaining({ code: 'TG_RATE_LIMITED' }));
  });

  it('one caller keeps at most half the process-wide cap, whatever the per-subject setting says (issue 28)', () => {
    const table = new McpSessionTable({ maxSessions: 5, maxSessionsPerSubject: 16 });
    for (let i = 0; i < 10; i++) open(table, 'hog', `h${i}`);
    // Half of 5, rounded up: the hog trades its own oldest past 3, and the rest stays for others.
    expect(table.ids().sort()).toEqual(['h7', 'h8', 'h9']);
    open(table, 'a', 'a1');
    open(table, 'b', 'b1');
    expect(table.size).toBe(5);
  });

  it('lists sessions idle since a time', () => {
    const table = new McpSessionTable({ maxSessions: 10, maxSessionsPerSubject: 10 });
    open(table, 'a', 'a1');
    open(table, 'a', 'a2');
    table.use('a2', 'a', 100);
    expect(table.idleSince(50)).toEqual(['a1']);
    expect(table.remove('a1')?.id).toBe('a1');
    expect(table.remove('a1')).toBeUndefined();
  });
});
