// The page's one WebSocket to its own server (`/ws`): JSON messages in and out, and a new
// connection by itself after a loss, with a growing pause between attempts.

export class Net {
  /**
   * @param {(msg: object) => void} onMessage every message from the server
   * @param {(up: boolean, code?: number) => void} onState called when the connection opens or
   *   is lost (with the close code)
   */
  constructor(onMessage, onState) {
    this.onMessage = onMessage;
    this.onState = onState;
    this.ws = null;
    this.up = false;
    this.retry = 250;
    this.queue = [];
    this.connect();
  }

  connect() {
    const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
    const ws = new WebSocket(`${scheme}://${location.host}/ws`);
    this.ws = ws;
    ws.onopen = () => {
      this.up = true;
      this.retry = 250;
      this.onState(true);
      const waiting = this.queue;
      this.queue = [];
      for (const m of waiting) this.send(m);
    };
    ws.onmessage = (ev) => {
      let msg;
      try {
        msg = JSON.parse(ev.data);
      } catch {
        return;
      }
      this.onMessage(msg);
    };
    ws.onclose = (ev) => {
      if (this.ws !== ws || this.closed) return;
      const was = this.up;
      this.up = false;
      // 4001: this seat was resumed from another window; taking it back at once would make
      // the two windows take it from each other for ever, so that waits for the person.
      this.stopped = ev.code === 4001;
      if (was || this.stopped) this.onState(false, ev.code);
      if (this.stopped) return;
      setTimeout(() => this.connect(), this.retry);
      this.retry = Math.min(this.retry * 2, 4000);
    };
  }

  /** Connects again after a stop (see `onclose`). */
  restart() {
    if (this.stopped) {
      this.stopped = false;
      this.connect();
    }
  }

  /** Closes the connection for good: no new one follows. */
  close() {
    this.closed = true;
    this.queue = [];
    this.ws?.close();
  }

  /** Sends a message now, or once the connection is up. */
  send(msg) {
    if (this.up && this.ws.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify(msg));
    else this.queue.push(msg);
  }
}
