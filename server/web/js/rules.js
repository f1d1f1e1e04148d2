// The rules of JChomp and classic Chomp as the page needs them: what a selection would eat,
// or why it is refused (out of range, then already eaten — the order of the server's checks),
// and the board, a refusal and a game's end in words.

import { cellName } from './notation.js';

/** A board to play on: the configuration and the eaten cells (row-major, 1 = eaten). */
export function newBoard(config) {
  const rows = config.rows, cols = config.cols;
  return {
    rows, cols,
    classic: config.variant === 'classic',
    eat: config.eat || [1, 1],
    poison: (config.poison || []).map(([r, c]) => r * cols + c),
    eaten: new Uint8Array(rows * cols),
  };
}

/** Whether (r, c) is a poison cell. */
export function isPoison(b, r, c) {
  return b.poison.includes(r * b.cols + c);
}

/**
 * What selecting (r, c) would do: `{ok: true, cells, poison}` with the cells it eats and
 * whether one of them is poisoned, or `{ok: false, reason, cells}` with the reason
 * (`out_of_range` or `already_eaten`) and the cells of the board it covers.
 */
export function check(b, r, c) {
  if (b.classic) {
    if (r < 0 || c < 0 || r >= b.rows || c >= b.cols) return { ok: false, reason: 'out_of_range', cells: [] };
    if (b.eaten[r * b.cols + c]) return { ok: false, reason: 'already_eaten', cells: [r * b.cols + c] };
    const cells = [];
    for (let i = r; i < b.rows; i++) {
      for (let j = c; j < b.cols; j++) if (!b.eaten[i * b.cols + j]) cells.push(i * b.cols + j);
    }
    return { ok: true, cells, poison: cells.some((i) => b.poison.includes(i)) };
  }
  const [e1, e2] = b.eat;
  const cells = [];
  for (let i = r; i < r + e1; i++) {
    for (let j = c; j < c + e2; j++) {
      if (i >= 0 && j >= 0 && i < b.rows && j < b.cols) cells.push(i * b.cols + j);
    }
  }
  if (r < 0 || c < 0 || r + e1 > b.rows || c + e2 > b.cols) return { ok: false, reason: 'out_of_range', cells };
  if (cells.some((i) => b.eaten[i])) return { ok: false, reason: 'already_eaten', cells };
  return { ok: true, cells, poison: cells.some((i) => b.poison.includes(i)) };
}

/** Plays a selection the server accepted; returns the cells it ate. */
export function play(b, r, c) {
  const res = check(b, r, c);
  if (!res.ok) return [];
  for (const i of res.cells) b.eaten[i] = 1;
  return res.cells;
}

/**
 * The reason a selection is refused, in words: the sentences of the rules crate's
 * `Rejection::explain`, which the server sends with `move_rejected`.
 */
export function refusal(b, r, c, reason) {
  const at = cellName(b, r, c);
  if (reason === 'out_of_range') {
    return b.classic
      ? `the cell ${at} is outside the ${b.rows}×${b.cols} board`
      : `the ${b.eat[0]}×${b.eat[1]} selection at ${at} reaches outside the ${b.rows}×${b.cols} board`;
  }
  return b.classic ? `the cell ${at} is already eaten` : `part of the ${b.eat[0]}×${b.eat[1]} selection at ${at} is already eaten`;
}

/**
 * How a game ended, in a sentence without its full stop: who lost, how, and who won
 * (`ada ate the poison and loses; bob wins`), or the tie. `names` are the seats' names.
 */
export function outcome(result, names) {
  if (!result) return 'No result';
  if (result.kind === 'tie') return 'A tie: no valid selection is left';
  const why = { poisoned: 'ate the poison', timeout: 'ran out of time', abandoned: 'left the game' }[result.kind] || 'lost';
  const others = names.filter((_, i) => i !== result.loser);
  return `${names[result.loser]} ${why} and loses; ${others.join(', ')} win${others.length === 1 ? 's' : ''}`;
}

/** The board's name in the notation of the tools: `6x7 eat 1x2`, `6x7 classic`. */
export function describe(config) {
  const size = `${config.rows}×${config.cols}`;
  return config.variant === 'classic' ? `${size} classic` : `${size} eat ${config.eat[0]}×${config.eat[1]}`;
}
