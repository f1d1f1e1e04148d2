// The board on screen: one button per cell in a grid that fits the window, the eaten, poison
// and last-move cells, the preview of a selection, annotations, and keyboard play (arrows move
// the cursor, Enter or Space selects). Drawing a change touches only the cells that changed.

import { h } from './dom.js';
import { isPoison } from './rules.js';
import { flipped, cellName } from './notation.js';

const VERDICT = { win: 'win', loss: 'loss', tie: 'tie', unknown: 'unknown' };

export class BoardView {
  /**
   * @param {object} b a board from rules.js
   * @param {{onHover?: (r: number, c: number) => void, onLeave?: () => void,
   *          onSelect?: (r: number, c: number) => void}} handlers
   */
  constructor(b, handlers = {}) {
    this.b = b;
    this.handlers = handlers;
    this.el = h('div', { class: 'board', role: 'grid', 'aria-label': `board, ${b.rows} rows by ${b.cols} columns` });
    this.el.style.setProperty('--rows', b.rows);
    this.el.style.setProperty('--cols', b.cols);
    // Drawn upside down in the bottom-left notation: row 0 (the poison's) at the bottom.
    this.flip = flipped(b);
    this.el.classList.toggle('flipped', this.flip);
    this.cells = [];
    this.notes = new Map();
    this.cursor = 0;
    for (let r = 0; r < b.rows; r++) {
      const row = h('div', { class: 'row', role: 'row' });
      for (let c = 0; c < b.cols; c++) {
        const cell = h('button', {
          type: 'button', class: isPoison(b, r, c) ? 'cell poison' : 'cell', role: 'gridcell',
          'data-r': r, 'data-c': c, tabindex: r === 0 && c === 0 ? 0 : -1,
        });
        row.append(cell);
        this.cells.push(cell);
      }
      this.el.append(row);
    }
    // Real pointer movement only: the boundary events a browser sends when the page changes
    // under a resting pointer would steal the preview from the keyboard's cursor.
    this.el.addEventListener('pointermove', (e) => {
      const cell = e.target.closest('.cell');
      if (cell && cell !== this.pointed) {
        this.pointed = cell;
        this.hover(+cell.dataset.r, +cell.dataset.c);
      }
    });
    this.el.addEventListener('pointerleave', () => {
      this.pointed = null;
      this.handlers.onLeave?.();
    });
    this.el.addEventListener('focusin', (e) => {
      const cell = e.target.closest('.cell');
      if (cell) this.hover(+cell.dataset.r, +cell.dataset.c);
    });
    this.el.addEventListener('click', (e) => {
      const cell = e.target.closest('.cell');
      if (cell) this.handlers.onSelect?.(+cell.dataset.r, +cell.dataset.c);
    });
    this.el.addEventListener('keydown', (e) => this.key(e));
    this.redraw();
  }

  hover(r, c) {
    this.setCursor(r * this.b.cols + c, false);
    this.handlers.onHover?.(r, c);
  }

  setCursor(i, focus) {
    this.cells[this.cursor].tabIndex = -1;
    this.cursor = i;
    this.cells[i].tabIndex = 0;
    if (focus) this.cells[i].focus();
  }

  key(e) {
    const { rows, cols } = this.b;
    // The cursor is the focused cell (focus may have come from outside the board's events).
    const at = e.target.closest?.('.cell');
    if (at) this.cursor = +at.dataset.r * cols + +at.dataset.c;
    let r = Math.floor(this.cursor / cols), c = this.cursor % cols;
    const moves = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };
    const d = moves[e.key];
    if (d) {
      e.preventDefault();
      const up = this.flip ? -d[0] : d[0];
      r = Math.min(rows - 1, Math.max(0, r + up));
      c = Math.min(cols - 1, Math.max(0, c + d[1]));
      this.hover(r, c);
      this.cells[r * cols + c].focus();
    } else if (e.key === 'Home' || e.key === 'End') {
      e.preventDefault();
      const i = e.key === 'Home' ? 0 : rows * cols - 1;
      this.hover(Math.floor(i / cols), i % cols);
      this.cells[i].focus();
    }
    // Enter and Space click the focused button.
  }

  /** Redraws every cell from the board (after a snapshot or a replay step). */
  redraw(last = []) {
    const lastSet = new Set(last);
    this.cells.forEach((cell, i) => {
      cell.classList.toggle('eaten', !!this.b.eaten[i]);
      cell.classList.toggle('last', lastSet.has(i));
      this.label(i);
    });
    this.lastCells = last;
  }

  /** Draws one move's cells as eaten and last, and the previous move's as no longer last. */
  drawMove(ate) {
    for (const i of this.lastCells || []) this.cells[i].classList.remove('last');
    for (const i of ate) {
      this.cells[i].classList.add('eaten', 'last');
      this.label(i);
    }
    this.lastCells = ate;
  }

  /** Marks what a selection would eat (`ok`) or the cells of a refused one. */
  preview(res) {
    this.clearPreview();
    const cls = !res.ok ? 'refused' : res.poison ? 'preview-poison' : 'preview';
    for (const i of res.cells) this.cells[i].classList.add(cls);
    this.previewed = res.cells;
  }

  clearPreview() {
    for (const i of this.previewed || []) this.cells[i].classList.remove('preview', 'preview-poison', 'refused');
    this.previewed = [];
  }

  /** Shows annotations: a list of `{row, col, value, plies}`, or nothing. */
  annotate(moves) {
    for (const i of this.notes.keys()) {
      const cell = this.cells[i];
      cell.textContent = '';
      delete cell.dataset.value;
      delete cell.dataset.plies;
      cell.classList.remove('note-win', 'note-loss', 'note-tie', 'note-unknown');
      this.label(i);
    }
    this.notes = new Map();
    for (const m of moves || []) {
      const i = m.row * this.b.cols + m.col;
      const cell = this.cells[i];
      if (!cell) continue;
      const value = VERDICT[m.value] || 'unknown';
      this.notes.set(i, m);
      cell.dataset.value = value;
      if (m.plies !== null && m.plies !== undefined) cell.dataset.plies = m.plies;
      cell.classList.add(`note-${value}`);
      cell.append(h('span', { class: 'note', 'aria-hidden': 'true' }, value === 'tie' ? '=' : value === 'unknown' ? '?' : String(m.plies)));
      this.label(i);
    }
  }

  label(i) {
    const r = Math.floor(i / this.b.cols), c = i % this.b.cols;
    const at = this.flip ? `cell ${cellName(this.b, r, c)}` : `row ${r}, column ${c}`;
    let text = `${at}: ${this.b.eaten[i] ? 'eaten' : 'uneaten'}`;
    if (this.b.poison.includes(i)) text += this.b.normal ? ', marked: eating it wins' : ', poison';
    const n = this.notes.get(i);
    if (n) {
      text += n.value === 'win' ? `, wins in ${n.plies} plies` : n.value === 'loss' ? `, loses in ${n.plies} plies` : n.value === 'tie' ? ', ties' : ', not proven';
    }
    this.cells[i].setAttribute('aria-label', text);
  }
}

/** The legend of the annotations. */
export function legend() {
  const key = (value, mark) => h('span', { class: `key note-${value}` }, h('span', { class: 'note' }, mark));
  return h('div', { class: 'legend' },
    key('win', '4'), ' win in that many plies (green circle, even) ',
    key('loss', '3'), ' loss, held out that many plies (red square, odd) ',
    key('tie', '='), ' tie ',
    key('unknown', '?'), ' not proven in time');
}
