import { createServer, type Server } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { HttpError, poll } from '../../src/index.js';

// A reason phrase is the server's text: HttpError's message (which users log) carries it without
// control characters and clipped, over a real raw socket that writes whatever it likes.

let server: Server | undefined;
afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

async function rawServer(statusLine: string): Promise<string> {
  server = createServer((socket) => {
    socket.once('data', () => socket.end(`${statusLine}\r\ncontent-length: 0\r\nconnection: close\r\n\r\n`));
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  const address = server.address() as { port: number };
  return `http://127.0.0.1:${address.port}/job`;
}

describe("HttpError: the server's reason phrase", () => {
  it('drops control characters (an escape sequence, a bell) from the message', async () => {
    const url = await rawServer('HTTP/1.1 404 Not\x1b[2J Found\x07');
    const error = (await poll(url).catch((e: unknown) => e)) as HttpError;
    expect(error).toBeInstanceOf(HttpError);
    expect(error.message).toBe(`HTTP 404 Not[2J Found from ${url}`);
    expect(error.response.statusText).toBe('Not\x1b[2J Found\x07');
  });

  it('clips a long one to 80 characters', async () => {
    const url = await rawServer(`HTTP/1.1 410 ${'x'.repeat(500)}`);
    const error = (await poll(url).catch((e: unknown) => e)) as HttpError;
    expect(error.message).toBe(`HTTP 410 ${'x'.repeat(80)} from ${url}`);
  });
});
