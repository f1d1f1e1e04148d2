// The lobby: quick pairing's "Play now" tiles (play.js), the live room list (join, watch), the form that creates a room with every option
// (the variant and the rule options with a note on what they mean together, poison cells placed
// on a small board, bots per seat, rated for a logged-in player), and the recently finished games.

import { h } from './dom.js';
import { describe, outcome } from './rules.js';
import { botTag, namesLine } from './ratings.js';
import { PlayNow } from './play.js';

const BOTS = ['random', 'greedy', 'level:1', 'level:2', 'level:3', 'level:4', 'level:5'];
// Rows and columns: JChomp boards are 4–15 each way; classic and edge-breaks bars 1–15, at
// least 2 cells (1×1 is the poison alone), the standard one 3×5.
const SIZES = { jchomp: [4, 15], classic: [1, 15], breaks: [1, 15] };
const VARIANT_NAMES = { classic: 'classic Chomp', breaks: 'edge breaks' };
const CLASSIC_MIN_CELLS = 2;
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
    this.poison = [[0, 0]];
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

  field(label, input) {
    return h('label', { class: 'field' }, h('span', {}, label), input);
  }

  num(id, value, min, max) {
    return h('input', { id, type: 'number', min, max, value, required: true, inputmode: 'numeric' });
  }

  createForm() {
    const form = h('form', { id: 'create', novalidate: true });
    this.inputs = {
      name: h('input', { id: 'name', maxlength: 32, required: true, value: this.app.name(), autocomplete: 'nickname' }),
      rows: this.num('rows', 6, 4, 15),
      cols: this.num('cols', 7, 4, 15),
      variant: h('select', { id: 'variant' }, h('option', { value: 'jchomp' }, 'JChomp (eat a rectangle)'), h('option', { value: 'classic' }, 'classic Chomp'),
        h('option', { value: 'breaks' }, 'edge breaks (break a side off)')),
      eatRows: this.num('eat-rows', 1, 1, 3),
      eatCols: this.num('eat-cols', 2, 1, 3),
      players: this.num('players', 2, 2, 4),
      moveTime: h('input', { id: 'move-time', type: 'number', min: 0, step: 'any', value: 0, inputmode: 'decimal' }),
      analysis: h('input', { id: 'analysis', type: 'checkbox' }),
      rated: h('input', { id: 'rated', type: 'checkbox' }),
    };
    this.ratedWhy = h('span', { class: 'hint-inline', id: 'rated-why' });
    const i = this.inputs;
    this.options = new RuleOptions(i);
    this.eatBox = h('span', { class: 'eat' }, this.field('Eat rows', i.eatRows), this.field('Eat columns', i.eatCols));
    this.picker = h('div', { class: 'picker', role: 'group', 'aria-label': 'poison cells: click to place or remove, 1 to 4' });
    this.seatsBox = h('div', { class: 'seats-setup' });
    this.error = h('p', { class: 'form-error', role: 'alert' });
    for (const el of [i.rows, i.cols]) el.addEventListener('change', () => this.drawPicker());
    i.variant.addEventListener('change', () => this.variantChanged());
    i.players.addEventListener('change', () => this.drawSeats());
    form.append(
      h('div', { class: 'fields' },
        this.field('Your name', i.name), this.field('Rows', i.rows), this.field('Columns', i.cols),
        this.field('Game', i.variant), this.eatBox, ...this.options.fields, this.field('Players', i.players),
        this.field('Seconds per move (0: no clock)', i.moveTime),
        h('label', { class: 'check' }, i.analysis, ' allow annotations during the game'),
        h('label', { class: 'check' }, i.rated, ' rated (only players with accounts; the built-in bot levels may sit)'), this.ratedWhy),
      this.options.note,
      h('fieldset', {}, h('legend', {}, 'Poison cells (1–4): click the board'), this.picker),
      h('fieldset', {}, h('legend', {}, 'Other seats'), this.seatsBox),
      this.error,
      h('button', { type: 'submit', id: 'create-room', class: 'primary' }, 'Create room'),
    );
    form.addEventListener('submit', (e) => { e.preventDefault(); this.create(); });
    this.drawPicker();
    this.drawSeats();
    this.accountChanged();
    return form;
  }

  /** A logged-in player plays under the account's name and may create a rated room. */
  accountChanged() {
    const i = this.inputs, who = this.app.account.name;
    i.name.value = who ?? this.app.name();
    i.name.readOnly = who !== null;
    i.rated.disabled = who === null;
    if (who === null) i.rated.checked = false;
    this.ratedWhy.replaceChildren(...(who === null
      ? ['Rated games need an account: ', h('a', { href: '#/account' }, 'log in or register'), ' first.']
      : [`You play as ${who}.`]));
    this.play?.accountChanged();
  }

  /** Shows the eat size for JChomp only, and gives the size inputs the variant's range. */
  variantChanged() {
    const i = this.inputs;
    this.eatBox.hidden = i.variant.value !== 'jchomp';
    // Edge breaks are counted from one poison cell.
    if (i.variant.value === 'breaks') this.poison = this.poison.slice(0, 1);
    const [min, max] = SIZES[i.variant.value] || SIZES.jchomp;
    for (const el of [i.rows, i.cols]) Object.assign(el, { min, max });
    this.drawPicker();
  }

  /** The board size asked for, each side brought into the variant's range. */
  size() {
    const [min, max] = SIZES[this.inputs.variant.value] || SIZES.jchomp;
    const clamp = (v) => Math.min(max, Math.max(min, Math.round(+v) || min));
    return [clamp(this.inputs.rows.value), clamp(this.inputs.cols.value)];
  }

  drawPicker() {
    const [rows, cols] = this.size();
    this.poison = this.poison.filter(([r, c]) => r < rows && c < cols);
    if (!this.poison.length) this.poison = [[0, 0]];
    this.picker.style.setProperty('--cols', cols);
    this.picker.replaceChildren();
    for (let r = 0; r < rows; r++) {
      for (let c = 0; c < cols; c++) {
        const on = this.poison.some(([pr, pc]) => pr === r && pc === c);
        this.picker.append(h('button', {
          type: 'button', class: on ? 'pick on' : 'pick', 'aria-pressed': on ? 'true' : 'false',
          'aria-label': `poison at row ${r}, column ${c}`, 'data-r': r, 'data-c': c,
          onclick: () => this.togglePoison(r, c),
        }));
      }
    }
  }

  togglePoison(r, c) {
    const at = this.poison.findIndex(([pr, pc]) => pr === r && pc === c);
    if (this.inputs.variant.value === 'breaks') {
      this.poison = [[r, c]];
    } else if (at >= 0) {
      if (this.poison.length > 1) this.poison.splice(at, 1);
    } else if (this.poison.length < 4) {
      this.poison.push([r, c]);
    } else {
      this.error.textContent = 'at most 4 poison cells: remove one first';
      return;
    }
    this.error.textContent = '';
    this.drawPicker();
  }

  drawSeats() {
    const n = Math.min(4, Math.max(2, Math.round(+this.inputs.players.value) || 2));
    const old = [...this.seatsBox.querySelectorAll('select')].map((s) => s.value);
    this.seatsBox.replaceChildren(h('p', { class: 'hint' }, 'You take seat 1. Bots sit down at once, in order; the free seats wait for people.'));
    for (let s = 1; s < n; s++) {
      const sel = h('select', { id: `seat-${s}` }, h('option', { value: '' }, 'a person'), ...BOTS.map((b) => h('option', { value: b }, `bot ${b}`)));
      sel.value = old[s - 1] ?? (s === 1 ? 'level:2' : '');
      this.seatsBox.append(this.field(`Seat ${s + 1}`, sel));
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
    const [rows, cols] = this.size();
    if (i.variant.value !== 'jchomp' && rows * cols < CLASSIC_MIN_CELLS) {
      this.error.textContent = `${VARIANT_NAMES[i.variant.value]} needs at least ${CLASSIC_MIN_CELLS} cells, got ${rows}×${cols}`;
      return;
    }
    if (!this.app.account.loggedIn) this.app.setName(name);
    const config = { rows, cols, players: Math.round(+i.players.value) || 2, poison: this.poison.map((p) => [...p]) };
    if (i.variant.value !== 'jchomp') config.variant = i.variant.value;
    else config.eat = [Math.round(+i.eatRows.value), Math.round(+i.eatCols.value)];
    this.options.apply(config);
    const secs = +i.moveTime.value;
    if (secs > 0) config.move_time_ms = Math.round(secs * 1000);
    if (i.analysis.checked) config.analysis = true;
    if (i.rated.checked) config.rated = true;
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

/**
 * The rule options of the create form beside the variant: misère or normal play and the ban on
 * square bites, with a note that says in words what the chosen combination means — and, before
 * the server refuses one, why it will (its refusal is still shown as it sends it).
 */
class RuleOptions {
  /**
   * @param {{variant: HTMLSelectElement, eatRows: HTMLInputElement, eatCols: HTMLInputElement}} inputs
   *   the form's variant and eat size, which the note reads
   */
  constructor(inputs) {
    this.inputs = inputs;
    this.play = h('select', { id: 'play-rule' },
      h('option', { value: 'misere' }, 'misère: whoever eats the poison loses'),
      h('option', { value: 'normal' }, 'normal: whoever eats a marked cell wins'));
    this.noSquares = h('input', { id: 'no-square-bites', type: 'checkbox' });
    this.note = h('p', { class: 'hint', id: 'options-note', 'aria-live': 'polite' });
    this.fields = [
      h('label', { class: 'field' }, h('span', {}, 'Play'), this.play),
      h('label', { class: 'check' }, this.noSquares, ' no square bites (1, 4, 9 … cells in a k×k block)'),
    ];
    for (const el of [this.play, this.noSquares, inputs.variant, inputs.eatRows, inputs.eatCols]) {
      el.addEventListener('change', () => this.explain());
    }
    this.explain();
  }

  /** Writes the note for the options, the variant and the eat size chosen now. */
  explain() {
    const variant = this.inputs.variant.value;
    const [er, ec] = [Math.round(+this.inputs.eatRows.value), Math.round(+this.inputs.eatCols.value)];
    const normal = this.play.value === 'normal', banned = this.noSquares.checked;
    const words = [];
    if (variant === 'breaks') {
      words.push('Edge breaks count the breaks from one poison cell: a click on the small board moves it. There is no eat size.');
    }
    if (normal) {
      words.push(banned
        ? 'Normal play: whoever eats a marked cell wins, every other seat loses.'
        : 'Normal play: whoever eats a marked cell wins. With square bites allowed the first seat can eat one at once and win; the server accepts this, as the rule is stated.');
    }
    if (banned && variant === 'jchomp' && er === ec) {
      words.push(`The server refuses this: with square bites banned the square eat size ${er}×${ec} would make every selection a square. Choose a size such as 1×2, or allow square bites.`);
    } else if (banned && variant === 'jchomp') {
      words.push(`No square bites: a ${er}×${ec} bite is never a square, so the ban changes nothing here.`);
    } else if (banned) {
      words.push('No square bites: a bite of a k×k block (a single cell too) is refused; a seat left with only such bites ties the game.');
    }
    this.note.textContent = words.join(' ');
    this.note.dataset.refused = banned && variant === 'jchomp' && er === ec;
  }

  /** Adds the chosen options to a `create_room` configuration (the defaults are left out). */
  apply(config) {
    if (this.play.value === 'normal') config.play = 'normal';
    if (this.noSquares.checked) config.no_square_bites = true;
  }
}
