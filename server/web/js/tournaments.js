// The tournaments the server runs (`#/tournaments`): their list, refreshed while it is shown,
// each linking to its page (tournament.js), and the form an account holder creates one with:
// its format, every game's configuration (boardform.js, as the room form asks for it), who may
// enter and when it starts (startform.js), and the bots entered (the built-in levels, and any
// bot spec the server plays).

import { h } from './dom.js';
import { BOTS, BoardForm, field, num } from './boardform.js';
import { MINUTE_MS, StartForm } from './startform.js';

const REFRESH_MS = 2000;
/** The built-in levels ticked at first: the quicker ones. */
const TICKED = 4;

/** A tournament's format in words: `round robin`, `Swiss, 3 rounds`, `arena, 10 min`. */
export function formatName(format) {
  if (format.kind === 'swiss') return `Swiss, ${format.rounds} round${format.rounds === 1 ? '' : 's'}`;
  if (format.kind === 'arena') return `arena, ${+(format.duration_ms / MINUTE_MS).toFixed(2)} min`;
  return 'round robin';
}

/** A tournament's page. */
export function tournamentLink(id, text) {
  return h('a', { href: `#/tournaments/${encodeURIComponent(id)}`, class: 'tournament' }, text);
}

export class TournamentsView {
  constructor(app) {
    this.app = app;
    this.title = 'JChomp · tournaments';
    this.el = h('div', { class: 'tournaments' });
    this.rows = h('tbody');
    this.why = h('p', { class: 'hint', id: 't-why' });
    this.form = this.createForm();
    this.el.append(
      h('div', { class: 'bar' }, h('a', { href: '#/', class: 'back' }, '← Lobby'), h('h2', {}, 'Tournaments')),
      h('table', { class: 'list', id: 'tournaments' },
        h('thead', {}, h('tr', {}, h('th', {}, 'Tournament'), h('th', {}, 'Format'), h('th', {}, 'Status'), h('th', {}, 'Entrants'), h('th', {}, 'Games finished'))),
        this.rows),
      h('section', { 'aria-labelledby': 'new-t-h' }, h('h2', { id: 'new-t-h' }, 'New tournament'), this.why, this.form));
    this.accountChanged();
  }

  start() {
    this.timer = setInterval(() => this.online(), REFRESH_MS);
    if (this.app.net.up) this.online();
  }

  online() {
    if (this.app.net.up) this.app.send({ type: 'list_tournaments' });
  }

  close() {
    clearInterval(this.timer);
  }

  createForm() {
    const form = h('form', { id: 'tournament-create', novalidate: true });
    this.error = h('p', { class: 'form-error', role: 'alert' });
    this.board = new BoardForm(this.error, 'rated (every game counts for the entrants\' ratings)');
    this.board.inputs.rows.value = 4;
    this.board.inputs.cols.value = 4;
    this.board.drawPicker();
    this.name = h('input', { id: 't-name', maxlength: 32, required: true, value: 'Friday cup' });
    this.format = h('select', { id: 't-format', onchange: () => this.formatChanged() },
      h('option', { value: 'round_robin' }, 'round robin (everyone meets everyone)'),
      h('option', { value: 'swiss' }, 'Swiss (rounds of players on about the same points)'),
      h('option', { value: 'arena' }, 'arena (pairing whoever is free until the time is up)'));
    this.rounds = num('t-rounds', 3, 1, 50);
    this.minutes = h('input', { id: 't-minutes', type: 'number', min: 1, max: 1440, value: 5, inputmode: 'numeric' });
    this.roundsBox = field('Rounds', this.rounds);
    this.minutesBox = field('Minutes', this.minutes);
    this.more = h('input', { id: 't-more', size: 30, placeholder: 'level:3,seed=7 search:time=200ms' });
    this.starts = new StartForm(this.error, () => this.entryChanged());
    this.bots = BOTS.map((b) => h('input', { type: 'checkbox', name: 'bots', value: b, id: `t-bot-${b.replace(':', '-')}`, checked: BOTS.indexOf(b) < TICKED }));
    this.botsSet = h('fieldset', { id: 't-bots' }, h('legend', {}, 'Built-in levels entered (to start at once: at least the players per game)'),
      ...this.bots.map((b) => h('label', { class: 'check' }, b, ` ${b.value}`)),
      field('More bots, by spec (separated by spaces)', this.more));
    form.append(
      h('div', { class: 'fields' }, field('Name', this.name), field('Format', this.format), this.roundsBox, this.minutesBox,
        ...this.board.fields, ...this.board.ratedFields, ...this.starts.fields),
      this.board.note,
      this.board.poisonSet,
      this.botsSet,
      this.error,
      h('button', { type: 'submit', id: 'create-tournament', class: 'primary' }, 'Create tournament'));
    form.addEventListener('submit', (e) => { e.preventDefault(); this.create(); });
    this.formatChanged();
    return form;
  }

  /** A tournament for people only takes no built-in levels. */
  entryChanged() {
    this.botsSet.hidden = !this.starts.levels();
  }

  /** Rounds for a Swiss, minutes for an arena. */
  formatChanged() {
    this.roundsBox.hidden = this.format.value !== 'swiss';
    this.minutesBox.hidden = this.format.value !== 'arena';
  }

  /** Only an account may create a tournament: a guest is told why and shown no form. */
  accountChanged() {
    const who = this.app.account.name;
    this.form.hidden = who === null;
    this.board.accountChanged(who);
    this.why.replaceChildren(...(who === null
      ? ['Creating a tournament needs an account: ', h('a', { href: '#/account' }, 'log in or register'), ' first. Anyone may watch.']
      : [`You create it as ${who} and watch it; entering it is up to you, on its page.`]));
  }

  /** The format asked for, as `create_tournament` takes it. */
  formatValue() {
    const kind = this.format.value;
    if (kind === 'swiss') return { kind, rounds: Math.round(+this.rounds.value) };
    if (kind === 'arena') return { kind, duration_ms: Math.round(+this.minutes.value * MINUTE_MS) };
    return { kind };
  }

  create() {
    this.error.textContent = '';
    const config = this.board.config();
    const starts = config && this.starts.value();
    if (!starts) return;
    const bots = !this.starts.levels() ? []
      : [...this.bots.filter((b) => b.checked).map((b) => b.value), ...this.more.value.split(/\s+/).filter(Boolean)];
    const name = this.name.value.trim();
    this.creating = name;
    this.app.send({ type: 'create_tournament', tournament: { name, format: this.formatValue(), config, bots, ...starts } });
  }

  onMessage(msg) {
    if (msg.type === 'tournaments') this.draw(msg.tournaments);
    // Views of a tournament watched before may arrive too: only the created one is opened.
    else if (msg.type === 'tournament' && msg.spec.name === this.creating) this.app.go(`#/tournaments/${encodeURIComponent(msg.id)}`);
    else if (msg.type === 'error') {
      this.creating = null;
      this.error.textContent = msg.message;
    }
  }

  draw(list) {
    this.rows.replaceChildren(...(list.length ? list.map((t) => h('tr', { 'data-tournament': t.id },
      h('td', {}, tournamentLink(t.id, t.name)),
      h('td', {}, formatName(t.format)),
      h('td', { class: 'status' }, t.status),
      h('td', { class: 'entrants' }, String(t.entrants)),
      h('td', { class: 'finished' }, String(t.finished_games)))) : [h('tr', {}, h('td', { colspan: 5, class: 'empty' }, 'No tournaments yet.'))]));
  }
}
