// How cells are named and drawn on screen: the wire's (row, column) counted from (0,0) at the
// top-left, or — for classic boards, when the person chooses it — the Graz application's
// notation, (1,1) at the bottom-left read as (row ↑, column →), with the board drawn upside
// down so that the poison sits in that corner. The choice is kept in the browser's storage; the
// messages to and from the server always use the wire's rows and columns.

import { h } from './dom.js';

const KEY = 'jchomp.notation';

/** Whether the bottom-left notation is chosen (it applies to classic boards only). */
export function bottomLeft() {
  return localStorage.getItem(KEY) === 'bottom-left';
}

/** Whether board `b` (from rules.js) is drawn and named from the bottom-left. */
export function flipped(b) {
  return !!b?.classic && bottomLeft();
}

/** The name of the wire's cell (r, c) on board `b`: `(2,3)`. */
export function cellName(b, r, c) {
  return flipped(b) ? `(${b.rows - r},${c + 1})` : `(${r},${c})`;
}

/**
 * The checkbox that chooses the notation (`#notation`), hidden until `show` says the board is
 * classic; `onChange` redraws the view.
 */
export function notationToggle(onChange) {
  const box = h('input', {
    type: 'checkbox', id: 'notation', checked: bottomLeft(),
    onchange: () => {
      if (box.checked) localStorage.setItem(KEY, 'bottom-left');
      else localStorage.removeItem(KEY);
      onChange();
    },
  });
  const label = h('label', { class: 'check', title: 'name cells from (1,1) at the bottom-left, read as (row ↑, column →)', hidden: true },
    box, ' (1,1) bottom-left');
  return {
    el: label,
    /** Shows the toggle for a classic board, hides it otherwise. */
    show(b) {
      label.hidden = !b?.classic;
      box.checked = bottomLeft();
    },
  };
}
