// The replay of a stored game: first, back, forward, last and a slider over its moves, the
// position drawn at each step, and the annotations of that position when asked for.

import { h } from './dom.js';
import { BoardView, legend } from './board.js';
import { newBoard, play, describe, outcome } from './rules.js';
import { cellName, notationToggle } from './notation.js';
import { namesLine } from './ratings.js';

export class ReplayView {
  constructor(app, game) {
    this.app = app;
    this.game = game;
    this.title = `JChomp · game ${game}`;
    this.record = null;
    this.index = 0;
    this.el = h('div', { class: 'replay' });
    this.info = h('p', { class: 'info' });
    this.boardBox = h('div', { class: 'board-box' });
    this.step = h('p', { class: 'turn', id: 'step', role: 'status', 'aria-live': 'polite' });
    this.slider = h('input', { type: 'range', id: 'slider', min: 0, max: 0, value: 0, 'aria-label': 'move', oninput: () => this.show(+this.slider.value) });
    const btn = (id, label, text, to) => h('button', { type: 'button', id, 'aria-label': label, onclick: () => this.show(to()) }, text);
    this.controls = h('div', { class: 'controls' },
      btn('first', 'first position', '|◀', () => 0),
      btn('back', 'one move back', '◀', () => this.index - 1),
      this.slider,
      btn('forward', 'one move forward', '▶', () => this.index + 1),
      btn('last', 'last position', '▶|', () => this.record.moves.length));
    this.noteToggle = h('input', { type: 'checkbox', id: 'annotate', onchange: () => this.toggleNotes() });
    this.noteBox = h('div', { class: 'notes', hidden: true });
    this.moves = h('ol', { class: 'moves', id: 'moves' });
    this.notation = notationToggle(() => this.record && this.load(this.record, this.index));
    this.el.append(
      h('div', { class: 'bar' }, h('a', { href: '#/', class: 'back' }, '← Lobby'), h('h2', {}, 'Game ', h('code', {}, game)), this.notation.el),
      this.info,
      h('div', { class: 'play' },
        h('div', { class: 'main-col' }, this.step, this.boardBox, this.controls,
          h('label', { class: 'check', id: 'annotate-label' }, this.noteToggle, ' annotations'), this.noteBox),
        h('aside', { class: 'side' }, h('h3', {}, 'Moves'), this.moves)),
    );
    this.el.addEventListener('keydown', (e) => {
      if (e.target === this.slider || e.target.closest?.('.board')) return;
      if (e.key === 'ArrowLeft') this.show(this.index - 1);
      else if (e.key === 'ArrowRight') this.show(this.index + 1);
    });
  }

  start() {
    if (this.app.net.up) this.online();
  }

  online() {
    this.app.send({ type: 'get_game', game: this.game });
  }

  onMessage(msg) {
    if (msg.type === 'game' && msg.record.id === this.game) this.load(msg.record);
    else if (msg.type === 'analysis' && msg.game === this.game && msg.index === this.index && this.noteToggle.checked) this.view.annotate(msg.moves);
    else if (msg.type === 'error') this.step.textContent = msg.message;
  }

  /** Draws a record's board and moves, at its last position or at `index`. */
  load(record, index = record.moves.length) {
    this.record = record;
    this.board = newBoard(record.config);
    this.view = new BoardView(this.board);
    this.boardBox.replaceChildren(this.view.el);
    this.notation.show(this.board);
    this.slider.max = record.moves.length;
    this.info.replaceChildren(`${describe(record.config)} · `, ...namesLine(record.seats, record.bots, ' vs '), ` · ${outcome(record.result, record.seats)}`);
    this.moves.replaceChildren(...record.moves.map((m, i) => h('li', {},
      h('button', { type: 'button', class: 'link', onclick: () => this.show(i + 1) }, `${record.seats[m.seat] ?? m.seat}: ${cellName(this.board, m.row, m.col)}`))));
    this.noteToggle.disabled = record.config.players !== 2;
    this.show(index);
  }

  /** Draws the position after `index` moves. */
  show(index) {
    if (!this.record) return;
    const n = this.record.moves.length;
    this.index = Math.max(0, Math.min(n, index));
    this.board.eaten.fill(0);
    let last = [];
    for (const m of this.record.moves.slice(0, this.index)) last = play(this.board, m.row, m.col);
    this.view.redraw(last);
    this.view.annotate([]);
    this.slider.value = this.index;
    this.el.dataset.index = this.index;
    [...this.moves.children].forEach((li, i) => li.classList.toggle('current', i === this.index - 1));
    const m = this.record.moves[this.index - 1];
    this.step.textContent = this.index === 0 ? `Start: ${n} moves in all.` : `Move ${this.index} of ${n}: ${this.record.seats[m.seat] ?? m.seat} took ${cellName(this.board, m.row, m.col)}.${this.index === n ? ` ${outcome(this.record.result, this.record.seats)}.` : ''}`;
    this.askNotes();
  }

  toggleNotes() {
    this.noteBox.hidden = !this.noteToggle.checked;
    this.noteBox.replaceChildren(this.noteToggle.checked ? legend() : '');
    if (this.noteToggle.checked) this.askNotes();
    else this.view?.annotate([]);
  }

  askNotes() {
    if (this.noteToggle.checked && this.record) this.app.send({ type: 'analyze', game: this.game, index: this.index });
  }
}
