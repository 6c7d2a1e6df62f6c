import { createServer } from 'node:net';

/**
 * A port nothing listens on now, the kernel's choice, for a server or stand-in a test starts itself
 * (a random number can land on a port in use: the ephemeral range holds every outgoing connection's).
 */
export const freePort = () =>
  new Promise<number>((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
