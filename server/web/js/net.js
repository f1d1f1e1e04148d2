// The page's one WebSocket to its own server (`/ws`): JSON messages in and out, and a new
// connection by itself after a loss, with a growing pause between attempts.

export class Net {
  /**
   * @param {(msg: object) => void} onMessage every message from the server
   * @param {(up: boolean) => void} onState called when the connection opens or is lost
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
    ws.onclose = () => {
      if (this.ws !== ws) return;
      const was = this.up;
      this.up = false;
      if (was) this.onState(false);
      setTimeout(() => this.connect(), this.retry);
      this.retry = Math.min(this.retry * 2, 4000);
    };
  }

  /** Sends a message now, or once the connection is up. */
  send(msg) {
    if (this.up && this.ws.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify(msg));
    else this.queue.push(msg);
  }
}
