import { connect, createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ConnectionCap } from '../../src/http/index.ts';

/** A bare TCP listener watched by `cap`, keeping the server side of each connection in accept order. */
async function listen(cap: ConnectionCap): Promise<{ server: Server; port: number; accepted: Socket[] }> {
  const server = createServer();
  cap.watch(server);
  const accepted: Socket[] = [];
  server.on('connection', (socket) => accepted.push(socket));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as { port: number }).port, accepted };
}

const clients: Socket[] = [];
let server: Server | undefined;
afterEach(async () => {
  for (const c of clients.splice(0)) c.destroy();
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  server = undefined;
});

/** Opens an idle client connection; `closed` resolves when the server ends it. */
async function idle(port: number): Promise<{ closed: Promise<void>; isClosed(): boolean }> {
  const socket = connect(port, '127.0.0.1');
  clients.push(socket);
  let closed = false;
  const whenClosed = new Promise<void>((resolve) => socket.once('close', () => {
    closed = true;
    resolve();
  }));
  socket.on('error', () => undefined);
  await new Promise((resolve) => socket.once('connect', resolve));
  return { closed: whenClosed, isClosed: () => closed };
}

describe('ConnectionCap', () => {
  it('counts connections from accept, idle ones included, and frees a slot when one closes or is released', async () => {
    const cap = new ConnectionCap(2, 2);
    const listening = await listen(cap);
    server = listening.server;
    const first = await idle(listening.port);
    await idle(listening.port);
    await expect.poll(() => cap.active).toBe(2);
    expect(cap.overflowing).toBe(0);
    expect(cap.isOverflow(listening.accepted[0]!)).toBe(false);

    await idle(listening.port);
    await expect.poll(() => cap.overflowing).toBe(1);
    expect(cap.active).toBe(2);
    expect(cap.isOverflow(listening.accepted[2]!)).toBe(true);

    listening.accepted[0]!.destroy();
    await first.closed;
    await expect.poll(() => cap.active).toBe(1);
    cap.release(listening.accepted[1]!);
    expect(cap.active).toBe(0);
  });

  it('makes room in a full overflow lane by closing the connection that has waited longest without a request', async () => {
    const cap = new ConnectionCap(1, 2);
    const listening = await listen(cap);
    server = listening.server;
    const within = await idle(listening.port);
    const waitedLongest = await idle(listening.port);
    const answering = await idle(listening.port);
    await expect.poll(() => cap.overflowing).toBe(2);
    // Its request came: it is being answered, so it leaves the waiting line.
    expect(cap.isOverflow(listening.accepted[2]!)).toBe(true);

    const newcomer = await idle(listening.port);
    await waitedLongest.closed;
    await expect.poll(() => listening.accepted.length).toBe(4);
    expect(cap.overflowing).toBe(2);
    expect(answering.isClosed()).toBe(false);
    expect(within.isClosed()).toBe(false);

    // Nobody left waiting (both in the lane are being answered): a further connection is closed at once.
    expect(cap.isOverflow(listening.accepted[3]!)).toBe(true);
    const refused = await idle(listening.port);
    await refused.closed;
    expect(newcomer.isClosed()).toBe(false);
    expect(cap.overflowing).toBe(2);
    expect(cap.active).toBe(1);
  });
});
