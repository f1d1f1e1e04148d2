// Quick pairing in the lobby ("Play now"): one tile per preset of the server with how many wait
// for it, the choice to let bots fill empty seats after the server's patience, and while the
// page waits in a pool the preset, the rating it is paired by, how many wait and the seconds
// waited, with a Cancel button. Once paired, the lobby's `joined` takes the page to the room.

import { h } from './dom.js';

export class PlayNow {
  /**
   * @param {object} app the page (`send`, `account`)
   * @param {HTMLInputElement} nameInput the lobby's name field, the name a guest plays under
   */
  constructor(app, nameInput) {
    this.app = app;
    this.nameInput = nameInput;
    /** The server's presets (`presets` message), or null before the first answer. */
    this.presets = null;
    this.patience = null;
    /** While waiting: `{preset, rating, waiting, since}`; else null. */
    this.wait = null;
    /** A `seek` or `cancel_seek` sent and not answered yet, so that its refusal shows here. */
    this.asked = null;
    this.tiles = h('div', { class: 'tiles', id: 'presets', role: 'group', 'aria-label': 'presets' });
    this.bots = h('input', { id: 'seek-bots', type: 'checkbox', checked: localStorage.getItem('jchomp.seek-bots') === '1' });
    this.bots.addEventListener('change', () => localStorage.setItem('jchomp.seek-bots', this.bots.checked ? '1' : '0'));
    this.botsWords = h('span', {}, ' bots may fill empty seats');
    this.who = h('p', { class: 'hint', id: 'play-who' });
    this.choose = h('div', { class: 'choose' }, this.tiles, h('label', { class: 'check' }, this.bots, this.botsWords), this.who);
    this.status = h('p', { id: 'seek-status', role: 'status', 'aria-live': 'polite' });
    this.clock = h('p', { id: 'seek-clock', class: 'hint' });
    this.waitBox = h('div', { class: 'seek-wait', id: 'seek-wait', hidden: true },
      this.status, this.clock,
      h('button', { type: 'button', id: 'cancel-seek', onclick: () => this.cancel() }, 'Cancel'));
    this.error = h('p', { class: 'seek-error', id: 'play-error', role: 'alert' });
    this.el = h('section', { 'aria-labelledby': 'play-h', class: 'play-now' },
      h('h2', { id: 'play-h' }, 'Play now'), this.choose, this.waitBox, this.error);
    this.accountChanged();
    this.draw();
  }

  start() {
    this.timer = setInterval(() => this.tick(), 1000);
  }

  /** A new connection: the old one's wait ended with it. */
  online() {
    if (this.wait) this.error.textContent = 'The connection was lost, and with it your place: choose again.';
    this.wait = null;
    this.asked = null;
    this.draw();
    this.refresh();
  }

  refresh() {
    this.app.send({ type: 'list_presets' });
  }

  /** Leaving the lobby ends the wait (a pairing would seat a page that is not looking). */
  close() {
    clearInterval(this.timer);
    if (this.wait) this.app.send({ type: 'cancel_seek' });
  }

  accountChanged() {
    const who = this.app.account.name;
    this.who.textContent = who === null
      ? 'As a guest you play under the name in the form below, unrated.'
      : `You play as ${who}; a room where everyone has an account is rated.`;
  }

  /** Handles the pairing answers (and the refusal of a request sent from here); whether it did. */
  onMessage(msg) {
    switch (msg.type) {
      case 'presets':
        this.presets = msg.presets;
        this.patience = msg.bot_patience_secs;
        if (this.wait) this.wait.waiting = this.presets.find((p) => p.name === this.wait.preset)?.waiting ?? this.wait.waiting;
        this.draw();
        return true;
      case 'seeking':
        this.asked = null;
        this.wait = { preset: msg.preset, rating: msg.rating, waiting: msg.waiting, since: Date.now() };
        this.draw();
        return true;
      case 'seek_ended':
        this.wait = null;
        this.asked = null;
        this.draw();
        this.refresh();
        return true;
      case 'paired':
        // Its `joined` follows, and the lobby opens the room.
        this.wait = null;
        this.asked = null;
        this.say(`Paired: opening room ${msg.room}…`);
        return true;
      case 'error':
        if (!this.asked) return false;
        this.asked = null;
        this.error.textContent = msg.message;
        return true;
      default:
        return false;
    }
  }

  seek(preset) {
    const msg = { type: 'seek', preset, bots: this.bots.checked };
    if (!this.app.account.loggedIn) {
      msg.name = this.nameInput.value.trim();
      if (!msg.name) {
        this.error.textContent = 'enter your name first (in the form below)';
        this.nameInput.focus();
        return;
      }
      this.app.setName(msg.name);
    }
    this.error.textContent = '';
    this.asked = 'seek';
    this.app.send(msg);
  }

  cancel() {
    this.error.textContent = '';
    this.asked = 'cancel';
    this.app.send({ type: 'cancel_seek' });
  }

  title(name) {
    return this.presets?.find((p) => p.name === name)?.title ?? name;
  }

  draw() {
    this.choose.hidden = !!this.wait;
    this.waitBox.hidden = !this.wait;
    this.botsWords.textContent = this.patience === null
      ? ' bots may fill empty seats'
      : ` bots may fill empty seats after ${this.patience} s`;
    if (this.wait) {
      const w = this.wait;
      this.say(`Waiting for ${w.preset} (${this.title(w.preset)}), paired by rating ${w.rating}, ${w.waiting} waiting.`);
      this.waitBox.dataset.preset = w.preset;
      this.tick();
      return;
    }
    if (this.presets?.length === 0) {
      this.tiles.replaceChildren(h('p', { class: 'empty' }, 'This server offers no quick pairing.'));
      return;
    }
    this.tiles.replaceChildren(...(this.presets ?? []).map((p) => h('button', {
      type: 'button', class: 'tile', 'data-preset': p.name, onclick: () => this.seek(p.name),
    }, h('strong', { class: 'tile-name' }, p.name), h('span', { class: 'tile-title' }, p.title),
    h('span', { class: 'tile-waiting' }, `${p.waiting} waiting`))));
  }

  /** Sets the waiting sentence, only when it changes (a live region reads out every change). */
  say(text) {
    if (this.status.textContent !== text) this.status.textContent = text;
  }

  /** The seconds waited, once a second. */
  tick() {
    if (this.wait) this.clock.textContent = `${Math.floor((Date.now() - this.wait.since) / 1000)} s waited`;
  }
}
