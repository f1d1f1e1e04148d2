// The lobby: quick pairing's "Play now" tiles (play.js), the live room list (join, watch), the form that creates a room with every option
// (the game's configuration and rule options from boardform.js, bots per seat, annotations), and
// the recently finished games.

import { h } from './dom.js';
import { describe, outcome } from './rules.js';
import { botTag, namesLine } from './ratings.js';
import { PlayNow } from './play.js';
import { BOTS, BoardForm, field } from './boardform.js';

const REFRESH_MS = 2000;

/** A room's seats in a line: each name with its bot and away tags, or `free`. */
function seatsLine(seats) {
  return seats.flatMap((s, i) => [i ? ', ' : '', ...(s
    ? [s.name, s.bot ? [' ', botTag()] : '', s.connected ? '' : [' ', h('span', { class: 'tag away' }, 'away')]]
    : [h('span', { class: 'free' }, 'free')])]);
}

export class LobbyView {
  constructor(app) {
    this.app = app;
    this.title = 'JChomp · lobby';
    this.pendingBots = null;
    this.el = h('div', { class: 'lobby' });
    this.rooms = h('tbody');
    this.games = h('tbody');
    this.build();
  }

  build() {
    const app = this.app;
    const mine = app.seat();
    this.form = this.createForm();
    this.play = new PlayNow(app, this.inputs.name);
    this.el.append(
      mine ? h('p', { class: 'mine' }, 'You hold a seat in room ', h('a', { href: `#/room/${encodeURIComponent(mine.room)}` }, mine.room), '.') : '',
      this.play.el,
      h('section', { 'aria-labelledby': 'rooms-h' },
        h('h2', { id: 'rooms-h' }, 'Rooms'),
        h('table', { class: 'list', id: 'rooms' },
          h('thead', {}, h('tr', {}, h('th', {}, 'Room'), h('th', {}, 'Board'), h('th', {}, 'Seats'), h('th', {}, 'Status'), h('th', {}, ''))),
          this.rooms)),
      h('section', { 'aria-labelledby': 'create-h' }, h('h2', { id: 'create-h' }, 'New room'), this.form),
      h('section', { 'aria-labelledby': 'games-h' },
        h('h2', { id: 'games-h' }, 'Finished games'),
        h('table', { class: 'list', id: 'games' },
          h('thead', {}, h('tr', {}, h('th', {}, 'Game'), h('th', {}, 'Board'), h('th', {}, 'Players'), h('th', {}, 'Result'), h('th', {}, ''))),
          this.games)),
    );
  }

  start() {
    this.timer = setInterval(() => this.refresh(), REFRESH_MS);
    this.play.start();
    if (this.app.net.up) this.online();
  }

  /** The lists that change by themselves: the rooms and the pairing pools. */
  refresh() {
    if (!this.app.net.up) return;
    this.play.refresh();
    this.app.send({ type: 'list_rooms' });
  }

  /** The pools are asked for first: the server answers in order, so the tiles above the room
   * list are drawn before it, and nothing below them moves once it is there (a click aimed at
   * a room would land elsewhere). */
  online() {
    this.play.online();
    this.app.send({ type: 'list_rooms' });
    this.app.send({ type: 'list_games', limit: 20 });
  }

  close() {
    clearInterval(this.timer);
    this.play.close();
  }

  createForm() {
    const form = h('form', { id: 'create', novalidate: true });
    this.error = h('p', { class: 'form-error', role: 'alert' });
    this.board = new BoardForm(this.error, 'rated (only players with accounts; the built-in bot levels may sit)');
    this.inputs = {
      ...this.board.inputs,
      name: h('input', { id: 'name', maxlength: 32, required: true, value: this.app.name(), autocomplete: 'nickname' }),
      analysis: h('input', { id: 'analysis', type: 'checkbox' }),
    };
    const i = this.inputs;
    this.seatsBox = h('div', { class: 'seats-setup' });
    i.players.addEventListener('change', () => this.drawSeats());
    form.append(
      h('div', { class: 'fields' },
        field('Your name', i.name), ...this.board.fields,
        h('label', { class: 'check' }, i.analysis, ' allow annotations during the game'),
        ...this.board.ratedFields),
      this.board.note,
      this.board.poisonSet,
      h('fieldset', {}, h('legend', {}, 'Other seats'), this.seatsBox),
      this.error,
      h('button', { type: 'submit', id: 'create-room', class: 'primary' }, 'Create room'),
    );
    form.addEventListener('submit', (e) => { e.preventDefault(); this.create(); });
    this.drawSeats();
    this.accountChanged();
    return form;
  }

  /** A logged-in player plays under the account's name and may create a rated room. */
  accountChanged() {
    const i = this.inputs, who = this.app.account.name;
    i.name.value = who ?? this.app.name();
    i.name.readOnly = who !== null;
    this.board.accountChanged(who, `You play as ${who}.`);
    this.play?.accountChanged();
  }

  drawSeats() {
    const n = this.board.players();
    const old = [...this.seatsBox.querySelectorAll('select')].map((s) => s.value);
    this.seatsBox.replaceChildren(h('p', { class: 'hint' }, 'You take seat 1. Bots sit down at once, in order; the free seats wait for people.'));
    for (let s = 1; s < n; s++) {
      const sel = h('select', { id: `seat-${s}` }, h('option', { value: '' }, 'a person'), ...BOTS.map((b) => h('option', { value: b }, `bot ${b}`)));
      sel.value = old[s - 1] ?? (s === 1 ? 'level:2' : '');
      this.seatsBox.append(field(`Seat ${s + 1}`, sel));
    }
  }

  create() {
    const i = this.inputs;
    const name = i.name.value.trim();
    if (!name) {
      this.error.textContent = 'enter your name first';
      i.name.focus();
      return;
    }
    const config = this.board.config();
    if (!config) return;
    if (!this.app.account.loggedIn) this.app.setName(name);
    if (i.analysis.checked) config.analysis = true;
    this.pendingBots = [...this.seatsBox.querySelectorAll('select')].map((s) => s.value).filter(Boolean);
    this.error.textContent = '';
    this.app.send({ type: 'create_room', name, config });
  }

  join(room) {
    const name = this.inputs.name.value.trim();
    if (!name) {
      this.error.textContent = 'enter your name (in the form below) to join';
      this.inputs.name.focus();
      return;
    }
    if (!this.app.account.loggedIn) this.app.setName(name);
    this.app.send({ type: 'join_room', room, name });
  }

  onMessage(msg) {
    if (this.play.onMessage(msg)) return;
    if (msg.type === 'rooms') this.drawRooms(msg.rooms);
    else if (msg.type === 'games') this.drawGames(msg.games);
    else if (msg.type === 'joined') {
      for (const bot of this.pendingBots || []) this.app.send({ type: 'add_bot', bot });
      this.pendingBots = null;
      this.app.go(`#/room/${encodeURIComponent(msg.room)}`);
    } else if (msg.type === 'error') {
      this.pendingBots = null;
      this.error.textContent = msg.message;
    }
  }

  drawRooms(rooms) {
    this.rooms.replaceChildren(...(rooms.length ? rooms.map((r) => {
      const link = `#/room/${encodeURIComponent(r.room)}`;
      return h('tr', { 'data-room': r.room },
        h('td', {}, h('code', {}, r.room)),
        h('td', {}, describe(r.config), r.config.move_time_ms ? ` · ${r.config.move_time_ms / 1000} s a move` : '', r.config.rated ? ' · rated' : ''),
        h('td', { class: 'seats-line' }, seatsLine(r.seats)),
        h('td', {}, r.status),
        h('td', { class: 'actions' },
          r.status === 'waiting' ? h('button', { type: 'button', class: 'join', onclick: () => this.join(r.room) }, 'Join') : '',
          h('a', { href: link, class: 'watch' }, 'Watch')));
    }) : [h('tr', {}, h('td', { colspan: 5, class: 'empty' }, 'No rooms yet: create one below.'))]));
  }

  drawGames(games) {
    this.games.replaceChildren(...(games.length ? games.map((g) => h('tr', { 'data-game': g.game },
      h('td', {}, h('code', {}, g.game)),
      h('td', {}, describe(g.config)),
      h('td', {}, namesLine(g.seats, g.bots)),
      h('td', {}, `${outcome(g.result, g.seats)} · ${g.moves} moves`),
      h('td', {}, h('a', { href: `#/game/${encodeURIComponent(g.game)}`, class: 'replay' }, 'Replay')))) : [h('tr', {}, h('td', { colspan: 5, class: 'empty' }, 'No finished games yet.'))]));
  }
}
