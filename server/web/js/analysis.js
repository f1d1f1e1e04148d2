// The analysis board (`#/analysis`): any two-player position set up without a game — a classic
// bar by clicking cells (eat from a cell, or give an eaten cell back) or by its row lengths
// (`[5,4,3]`: the poison's row first), a JChomp board by placing and removing bites —
// with every selection annotated by the server (`analyze` of the position given outright, over
// the page's one connection: no room, no game), and the best line stepped through.

import { h } from './dom.js';
import { BoardView, legend } from './board.js';
import { newBoard, check, play, describe } from './rules.js';
import { cellName, notationToggle } from './notation.js';

const SIZE = { classic: [1, 15], jchomp: [4, 15] };

/** The row lengths of a classic position: uneaten cells from the left of each row. */
export function rowLengths(b) {
  const lengths = [];
  for (let r = 0; r < b.rows; r++) {
    let n = 0;
    while (n < b.cols && !b.eaten[r * b.cols + n]) n++;
    lengths.push(n);
  }
  return lengths;
}

/** Reads `[5,4,3]` (or `5 4 3`): non-increasing lengths, the first 1–15; else an error. */
export function parseLengths(text) {
  const parts = text.replace(/[[\]]/g, ' ').split(/[\s,]+/).filter(Boolean).map(Number);
  if (!parts.length || parts.length > 15 || parts.some((n) => !Number.isInteger(n) || n < 0 || n > 15)) {
    return { error: 'give 1–15 row lengths of 0–15, the poison\'s row first: [5,4,3]' };
  }
  if (parts[0] < 1 || parts.some((n, i) => i > 0 && n > parts[i - 1])) {
    return { error: 'row lengths must not grow away from the poison\'s row, which keeps its poison: [5,4,3]' };
  }
  return { lengths: parts };
}

/** Moves that set a classic position up from the full bar: one bite per step of the staircase. */
function stairMoves(lengths, cols) {
  const moves = [];
  let prev = cols;
  lengths.forEach((n, r) => {
    if (n < prev) moves.push({ row: r, col: n });
    prev = Math.min(prev, n);
  });
  return moves;
}

/** The best of an analysis' moves: the quickest win, else a tie, else the longest loss. */
function best(moves) {
  const known = (moves || []).filter((m) => m.value !== 'unknown');
  const wins = known.filter((m) => m.value === 'win').sort((a, b) => a.plies - b.plies);
  const losses = known.filter((m) => m.value === 'loss').sort((a, b) => b.plies - a.plies);
  return wins[0] || known.find((m) => m.value === 'tie') || losses[0] || null;
}

export class AnalysisView {
  constructor(app) {
    this.app = app;
    this.title = 'JChomp · analysis board';
    this.config = { rows: 4, cols: 7, variant: 'classic', poison: [[0, 0]] };
    this.setup = [];
    this.line = [];
    this.step = 0;
    this.notes = null;
    this.el = h('div', { class: 'analysis' });
    this.inputs = {
      variant: h('select', { id: 'a-variant', 'aria-label': 'game', onchange: () => this.resize() },
        h('option', { value: 'classic' }, 'classic'), h('option', { value: 'jchomp' }, 'JChomp')),
      rows: h('input', { id: 'a-rows', 'aria-label': 'rows', type: 'number', min: 1, max: 15, value: 4, onchange: () => this.resize() }),
      cols: h('input', { id: 'a-cols', 'aria-label': 'columns', type: 'number', min: 1, max: 15, value: 7, onchange: () => this.resize() }),
      eatRows: h('input', { id: 'a-eat-rows', 'aria-label': 'eat rows', type: 'number', min: 1, max: 3, value: 1, onchange: () => this.resize() }),
      eatCols: h('input', { id: 'a-eat-cols', 'aria-label': 'eat columns', type: 'number', min: 1, max: 3, value: 2, onchange: () => this.resize() }),
      lengths: h('input', { id: 'lengths', type: 'text', placeholder: '[5,4,3]', 'aria-label': 'row lengths, the poison\'s row first' }),
    };
    const i = this.inputs;
    this.eatBox = h('span', { hidden: true }, ' eat ', i.eatRows, '×', i.eatCols);
    this.lengthBox = h('form', { class: 'lengths', onsubmit: (e) => { e.preventDefault(); this.setLengths(); } },
      i.lengths, ' ', h('button', { type: 'submit', id: 'set-lengths' }, 'Set'));
    this.error = h('p', { class: 'form-error', id: 'a-error', role: 'alert' });
    this.status = h('p', { class: 'turn', id: 'a-status', role: 'status', 'aria-live': 'polite' });
    this.boardBox = h('div', { class: 'board-box' });
    this.lineList = h('ol', { class: 'moves', id: 'line' });
    this.notation = notationToggle(() => this.draw());
    const btn = (id, label, text, go) => h('button', { type: 'button', id, 'aria-label': label, onclick: go }, text);
    this.el.append(
      h('div', { class: 'bar' }, h('a', { href: '#/', class: 'back' }, '← Lobby'), h('h2', {}, 'Analysis board'), this.notation.el),
      h('div', { class: 'setup' }, i.variant, h('span', {}, i.rows, ' × ', i.cols), this.eatBox, this.lengthBox),
      this.error,
      h('div', { class: 'play' },
        h('div', { class: 'main-col' }, this.status, this.boardBox,
          h('div', { class: 'controls' },
            btn('line-back', 'one move back along the best line', '◀', () => this.go(this.step - 1)),
            btn('line-forward', 'one move forward along the best line', '▶', () => this.forward())),
          h('div', { class: 'notes' }, legend())),
        h('aside', { class: 'side' }, h('h3', {}, 'Best line'), this.lineList)),
    );
    // One question at a time: `asked` is under way, `want` the one the page shows next.
    this.asked = null;
    this.sentOn = null;
    this.want = null;
  }

  start() {
    this.resize();
  }

  /** The connection is up: a question lost with the last one is asked again (one that waited
   * in the connection's queue has just been sent, and must not be answered twice). */
  online() {
    if (!this.asked) return;
    if (this.sentOn === null) this.sentOn = this.app.net.ws;
    else if (this.sentOn !== this.app.net.ws) this.ask(this.asked);
  }

  onMessage(msg) {
    if (!this.asked || (msg.type !== 'analysis' && msg.type !== 'error')) return;
    // Not an answer to this board: a room's or a game's analysis, or another position's.
    if (msg.type === 'analysis' && (msg.room || msg.game || msg.index !== this.asked.moves.length)) return;
    const answered = this.asked;
    this.asked = null;
    if (answered === this.want) {
      if (msg.type === 'analysis') this.analysed(msg);
      else this.refused(msg.message);
    } else if (this.want) this.ask(this.want);
  }

  /** Asks for the analysis of the position `moves` (`{row, col}`) reach from the start. */
  analyze(moves) {
    this.want = { type: 'analyze', config: { ...this.config, players: 2 }, moves: moves.map((m) => [m.row, m.col]) };
    if (!this.asked) this.ask(this.want);
  }

  /** Sends a question; `sentOn` is the socket it went on (null: queued until one is up). */
  ask(question) {
    this.asked = question;
    this.sentOn = this.app.net.up ? this.app.net.ws : null;
    this.app.send(question);
  }

  /** The server would not analyse the position: its reason, in words. */
  refused(text) {
    this.error.textContent = text;
    this.status.textContent = `${describe(this.config)}: not analysed.`;
  }

  /** A fresh full board from the size inputs. */
  resize() {
    const i = this.inputs, classic = i.variant.value === 'classic';
    const [lo, hi] = SIZE[classic ? 'classic' : 'jchomp'];
    const size = (input) => Math.min(hi, Math.max(lo, Math.round(+input.value) || lo));
    const before = JSON.stringify(this.config);
    this.config = { rows: size(i.rows), cols: size(i.cols), poison: [[0, 0]] };
    if (classic) this.config.variant = 'classic';
    else this.config.eat = [Math.min(3, Math.max(1, Math.round(+i.eatRows.value) || 1)), Math.min(3, Math.max(1, Math.round(+i.eatCols.value) || 1))];
    if (classic && this.config.rows * this.config.cols < 2) this.config.cols = 2;
    i.rows.value = this.config.rows;
    i.cols.value = this.config.cols;
    this.eatBox.hidden = classic;
    this.lengthBox.hidden = !classic;
    // A field's second `change` (on leaving it) keeps the position set up since.
    if (this.board && JSON.stringify(this.config) === before) return;
    this.edit([]);
  }

  /** Sets a classic position from the row-length field. */
  setLengths() {
    const got = parseLengths(this.inputs.lengths.value);
    if (got.error) {
      this.error.textContent = got.error;
      return;
    }
    const i = this.inputs;
    i.variant.value = 'classic';
    i.rows.value = got.lengths.length;
    i.cols.value = got.lengths[0];
    this.config = { rows: got.lengths.length, cols: got.lengths[0], variant: 'classic', poison: [[0, 0]] };
    this.eatBox.hidden = true;
    this.lengthBox.hidden = false;
    this.edit(stairMoves(got.lengths, got.lengths[0]));
  }

  /** A new set-up position (the best line starts again from it). */
  edit(setup) {
    this.error.textContent = '';
    this.setup = setup;
    this.line = [];
    this.step = 0;
    this.draw();
  }

  /** The board after the set-up and `step` moves of the best line. */
  position() {
    const b = newBoard(this.config);
    for (const m of [...this.setup, ...this.line.slice(0, this.step)]) play(b, m.row, m.col);
    return b;
  }

  /** Draws the position, asks for its analysis, and lists the line. */
  draw() {
    this.board = this.position();
    this.view = new BoardView(this.board, { onSelect: (r, c) => this.toggle(r, c) });
    this.boardBox.replaceChildren(this.view.el);
    this.notation.show(this.board);
    const classic = this.board.classic;
    if (classic) this.inputs.lengths.value = `[${rowLengths(this.board).join(',')}]`;
    this.el.dataset.position = classic ? JSON.stringify(rowLengths(this.board)) : '';
    this.el.dataset.step = this.step;
    this.el.dataset.ready = 'false';
    this.lineList.replaceChildren(...this.line.map((m, k) => h('li', { class: k === this.step - 1 ? 'current' : '' },
      h('button', { type: 'button', class: 'link', onclick: () => this.go(k + 1) }, `${cellName(this.board, m.row, m.col)} ${m.value} ${m.plies ?? ''}`.trim()))));
    this.notes = null;
    this.status.textContent = `${describe(this.config)}: analysing…`;
    this.analyze([...this.setup, ...this.line.slice(0, this.step)]);
  }

  analysed(msg) {
    this.notes = msg.moves;
    this.view.annotate(msg.moves);
    this.el.dataset.ready = 'true';
    const top = best(msg.moves);
    const where = this.board.classic ? ` [${rowLengths(this.board).join(',')}]` : '';
    if (!msg.moves.length) this.status.textContent = `${describe(this.config)}${where}: no selection is left.`;
    else if (!top) this.status.textContent = `${describe(this.config)}${where}: not proven in the time allowed.`;
    else {
      const verdict = top.value === 'win' ? `wins in ${top.plies} plies` : top.value === 'loss' ? `loses in ${top.plies} plies` : 'ties';
      this.status.textContent = `${describe(this.config)}${where}: the player to move ${verdict}; best ${cellName(this.board, top.row, top.col)}.`;
    }
  }

  /** Eats from a cell or gives an eaten cell back (classic), places or removes a bite (JChomp). */
  toggle(r, c) {
    const b = this.board, i = r * b.cols + c;
    if (b.poison.includes(i)) {
      this.error.textContent = 'the poison stays on the board';
      return;
    }
    const here = [...this.setup, ...this.line.slice(0, this.step)];
    if (b.classic) {
      if (b.eaten[i]) for (let y = 0; y <= r; y++) for (let x = 0; x <= c; x++) b.eaten[y * b.cols + x] = 0;
      else play(b, r, c);
      this.edit(stairMoves(rowLengths(b), b.cols));
    } else if (b.eaten[i]) {
      // The bite that ate the cell goes; the others stay (bites never overlap).
      const rest = here.filter((m) => !check(newBoard(this.config), m.row, m.col).cells.includes(i));
      this.edit(rest);
    } else {
      const res = check(b, r, c);
      if (!res.ok || res.poison) {
        this.error.textContent = res.ok ? 'the poison stays on the board' : `a bite at ${cellName(b, r, c)} does not fit`;
        return;
      }
      this.edit([...here, { row: r, col: c }]);
    }
  }

  /** Shows the position after `step` moves of the best line. */
  go(step) {
    this.step = Math.max(0, Math.min(this.line.length, step));
    this.draw();
  }

  /** One move forward: along the line already found, or the best move of this position. */
  forward() {
    if (this.step < this.line.length) return this.go(this.step + 1);
    const top = best(this.notes);
    // The line ends before the poison is eaten.
    if (!top || check(this.board, top.row, top.col).poison) return;
    this.line.push(top);
    this.go(this.step + 1);
  }
}
