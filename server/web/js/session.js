// The account this browser is logged in to: its session token, kept in the browser's storage
// under `jchomp.session` and sent with `authenticate` first on every connection, and the
// server's answers to the account requests (`account`, `bot_token`, `logged_out`, and the
// errors that refuse one).

const KEY = 'jchomp.session';
/** The messages that answer an account request. */
const ANSWERS = new Set(['account', 'bot_token', 'logged_out']);
/** The error codes an account request may be refused with. */
const REFUSALS = new Set(['name_taken', 'bad_credentials', 'too_many_attempts', 'bad_request', 'forbidden', 'bad_token', 'server_full', 'internal']);

/** The session kept in the browser: `{name, token, expires_ms}`, or null. */
function stored() {
  try {
    const s = JSON.parse(localStorage.getItem(KEY) || 'null');
    return s && typeof s.token === 'string' ? s : null;
  } catch {
    return null;
  }
}

export class Session {
  /**
   * @param {object} app the page (`send`, `notice`)
   * @param {() => void} changed called when who the page is logged in as changes
   */
  constructor(app, changed) {
    this.app = app;
    this.changed = changed;
    this.name = stored()?.name ?? null;
    /** The account requests sent and not answered yet, oldest first. */
    this.pending = [];
  }

  /** Whether the page acts as an account (its requests are sent after its `authenticate`). */
  get loggedIn() {
    return this.name !== null;
  }

  /** On every new connection: acts as the kept session's account again, if there is one. */
  online() {
    this.pending = [];
    const s = stored();
    if (!s) return;
    if (s.expires_ms && s.expires_ms <= Date.now()) {
      this.drop('Your session expired: log in again.');
      return;
    }
    this.request({ type: 'authenticate', token: s.token });
  }

  /** Sends an account request; its answer or refusal is the next one `take` sees. */
  request(msg) {
    this.pending.push(msg.type);
    this.app.send(msg);
  }

  /**
   * Takes a message if it answers an account request: returns the request's type (the
   * message was one of its answers), or null.
   */
  take(msg) {
    const refused = msg.type === 'error' && REFUSALS.has(msg.code);
    if (!this.pending.length || !(ANSWERS.has(msg.type) || refused)) return null;
    const asked = this.pending.shift();
    if (msg.type === 'account') this.acting(msg);
    else if (msg.type === 'logged_out') this.drop('');
    else if (refused && asked === 'authenticate') this.drop('Your session has ended (it expired, or it was logged out everywhere): log in again.');
    return asked;
  }

  /** The connection acts as `msg.name` now; a new session's token is kept. */
  acting(msg) {
    if (msg.token) {
      localStorage.setItem(KEY, JSON.stringify({ name: msg.name, token: msg.token, expires_ms: msg.expires_ms }));
      // A new session: what was said about an ended one is over.
      this.app.notice('');
    }
    this.name = msg.name;
    this.changed();
  }

  /** Forgets the session (saying why, when `why` is not empty). */
  drop(why) {
    localStorage.removeItem(KEY);
    this.name = null;
    if (why) this.app.notice(why, 'warn');
    this.changed();
  }
}
