import { createServer, type Server } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { connectRedis, parseRedisUrl, QueueError } from './connection.js';

// A Redis that requires a password answers every command of a client without one with NOAUTH.
describe('connectRedis to a server that wants a password', () => {
  let server: Server;
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('says in one line that the URL needs the password, not the server’s sentence about HELLO', async () => {
    server = createServer((socket) => {
      // One answer per command (a client pipelines several), as Redis 7 gives them.
      socket.on('data', (d) => {
        for (const command of d.toString().match(/(?:^|\r\n)\*\d+\r\n\$\d+\r\n\w+/g) ?? [])
          socket.write(
            /hello$/i.test(command)
              ? '-NOAUTH HELLO must be called with the client already authenticated, otherwise the HELLO AUTH <user> <pass> option can be used\r\n'
              : '-NOAUTH Authentication required.\r\n',
          );
      });
      socket.on('error', () => {});
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const port = (server.address() as { port: number }).port;
    const err = await connectRedis(parseRedisUrl(`redis://127.0.0.1:${port}`)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(QueueError);
    expect((err as Error).message).toBe(
      `cannot reach the queue at redis://127.0.0.1:${port}: NOAUTH, authentication required (the server requires a password: give it in the URL, redis://:password@host:6379 or redis://user:password@host:6379)`,
    );
  });
});
