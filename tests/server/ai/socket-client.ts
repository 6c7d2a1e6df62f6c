import WebSocket from 'ws';

export interface Frame {
  type: string;
  id?: string | number;
  data: any;
}

/** A real websocket client that collects frames and waits for the ones a test expects. */
export class SocketClient {
  frames: Frame[] = [];
  private waiters: { match: (f: Frame) => boolean; resolve: (f: Frame) => void }[] = [];
  private constructor(readonly ws: WebSocket) {
    ws.on('message', (raw) => {
      const f = JSON.parse(raw.toString()) as Frame;
      this.frames.push(f);
      for (const w of [...this.waiters]) {
        if (w.match(f)) {
          this.waiters.splice(this.waiters.indexOf(w), 1);
          w.resolve(f);
        }
      }
    });
  }

  /** `headers` go with the upgrade request (a script's API key: Authorization: Bearer fw_…). */
  static async open(url: string, headers?: Record<string, string>): Promise<SocketClient> {
    const ws = new WebSocket(url, { headers });
    const client = new SocketClient(ws);
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    await client.next((f) => f.type === 'ready');
    return client;
  }

  /** The first frame (already received or coming) that matches; fails after `ms`. */
  next(match: (f: Frame) => boolean, ms = 20_000): Promise<Frame> {
    const seen = this.frames.find(match);
    if (seen) {
      this.frames.splice(this.frames.indexOf(seen), 1);
      return Promise.resolve(seen);
    }
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no matching frame within ${ms} ms; got ${JSON.stringify(this.frames.map((f) => f.type))}`)), ms);
      this.waiters.push({
        match,
        resolve: (f) => {
          clearTimeout(timer);
          this.frames.splice(this.frames.indexOf(f), 1);
          resolve(f);
        },
      });
    });
  }

  send(type: string, data?: unknown, id?: string | number) {
    this.ws.send(JSON.stringify({ type, data, ...(id === undefined ? {} : { id }) }));
  }

  /** Sends a request with an id and waits for the reply of `replyType` carrying it. */
  async request(type: string, data: unknown, replyType: string): Promise<Frame> {
    const id = `${type}-${Math.random().toString(36).slice(2)}`;
    this.send(type, data, id);
    return this.next((f) => f.id === id && (f.type === replyType || f.type === 'error'));
  }

  close() {
    this.ws.close();
  }
}
