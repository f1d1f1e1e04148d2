// The rules of JChomp, classic Chomp and edge breaks, under misère or normal play and with or
// without the ban on square bites, as the page needs them: what a selection would eat, or why
// it is refused (out of range, then already eaten, then not a break, then a square bite — the
// order of the server's checks), and the board, its rules, a refusal and a game's end in words.

import { cellName } from './notation.js';

/** A board to play on: the configuration and the eaten cells (row-major, 1 = eaten). */
export function newBoard(config) {
  const rows = config.rows, cols = config.cols;
  const variant = config.variant || 'jchomp';
  return {
    rows, cols, variant,
    classic: variant === 'classic',
    breaks: variant === 'breaks',
    normal: config.play === 'normal',
    noSquares: !!config.no_square_bites,
    eat: config.eat || [1, 1],
    poison: (config.poison || []).map(([r, c]) => r * cols + c),
    eaten: new Uint8Array(rows * cols),
  };
}

/** Whether (r, c) is a poison cell. */
export function isPoison(b, r, c) {
  return b.poison.includes(r * b.cols + c);
}

/** The cells of rows r0..r1-1 and columns c0..c1-1 that lie on the board. */
function block(b, r0, c0, r1, c1) {
  const cells = [];
  for (let i = Math.max(0, r0); i < Math.min(b.rows, r1); i++) {
    for (let j = Math.max(0, c0); j < Math.min(b.cols, c1); j++) cells.push(i * b.cols + j);
  }
  return cells;
}

/**
 * The cells of the whole board an edge break at (r, c) takes: beyond the grid line on the
 * cell's near side, away from the poison; the whole board at the poison; none off its cross.
 */
function breakPiece(b, r, c) {
  const pr = Math.floor(b.poison[0] / b.cols), pc = b.poison[0] % b.cols;
  if (r === pr && c === pc) return block(b, 0, 0, b.rows, b.cols);
  if (c === pc) return r > pr ? block(b, r, 0, b.rows, b.cols) : block(b, 0, 0, r + 1, b.cols);
  if (r === pr) return c > pc ? block(b, 0, c, b.rows, b.cols) : block(b, 0, 0, b.rows, c + 1);
  return [];
}

/** Whether `cells` are exactly a k×k block (1, 4, 9 … cells). */
function isSquare(b, cells) {
  const k = Math.round(Math.sqrt(cells.length));
  if (!cells.length || k * k !== cells.length) return false;
  const first = Math.min(...cells), r = Math.floor(first / b.cols), c = first % b.cols;
  const set = new Set(cells);
  return block(b, r, c, r + k, c + k).filter((i) => set.has(i)).length === cells.length;
}

/** A selection the rules accept: the cells it eats and whether a poison cell is among them. */
function eats(b, cells) {
  return { ok: true, cells, poison: cells.some((i) => b.poison.includes(i)) };
}

/** Classic Chomp and edge breaks: a selection names one uneaten cell. */
function checkCell(b, r, c) {
  if (r < 0 || c < 0 || r >= b.rows || c >= b.cols) return { ok: false, reason: 'out_of_range', cells: [] };
  const at = r * b.cols + c;
  if (b.eaten[at]) return { ok: false, reason: 'already_eaten', cells: [at] };
  const piece = b.breaks ? breakPiece(b, r, c) : block(b, r, c, b.rows, b.cols);
  const cells = piece.filter((i) => !b.eaten[i]);
  if (b.breaks && !cells.length) return { ok: false, reason: 'not_a_break', cells: [at] };
  if (b.noSquares && isSquare(b, cells)) return { ok: false, reason: 'square_bite', cells };
  return eats(b, cells);
}

/**
 * What selecting (r, c) would do: `{ok: true, cells, poison}` with the cells it eats and
 * whether one of them is poisoned (in normal play: marked), or `{ok: false, reason, cells}`
 * with the reason (`out_of_range`, `already_eaten`, `not_a_break` or `square_bite`) and the
 * cells of the board it covers.
 */
export function check(b, r, c) {
  if (b.variant !== 'jchomp') return checkCell(b, r, c);
  const [e1, e2] = b.eat;
  const cells = block(b, r, c, r + e1, c + e2);
  if (r < 0 || c < 0 || r + e1 > b.rows || c + e2 > b.cols) return { ok: false, reason: 'out_of_range', cells };
  if (cells.some((i) => b.eaten[i])) return { ok: false, reason: 'already_eaten', cells };
  if (b.noSquares && isSquare(b, cells)) return { ok: false, reason: 'square_bite', cells };
  return eats(b, cells);
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
  const one = b.variant !== 'jchomp';
  const size = `${b.eat[0]}×${b.eat[1]}`;
  switch (reason) {
    case 'out_of_range':
      return one
        ? `the cell ${at} is outside the ${b.rows}×${b.cols} board`
        : `the ${size} selection at ${at} reaches outside the ${b.rows}×${b.cols} board`;
    case 'already_eaten':
      return one ? `the cell ${at} is already eaten` : `part of the ${size} selection at ${at} is already eaten`;
    case 'not_a_break':
      return `the cell ${at} names no break: breaks are named by a cell in the row or column of the poison cell`;
    default:
      return `the selection at ${at} would bite a perfect square, which is banned`;
  }
}

/** Names in a list: `bob`, `bob, cy`. */
function list(names) {
  return names.join(', ');
}

/**
 * How a game ended, in a sentence without its full stop: who lost, how, and who won
 * (`ada ate the poison and loses; bob wins`), in normal play who won by eating a marked cell
 * (`ada ate a marked cell and wins; bob loses`), or the tie. `names` are the seats' names.
 */
export function outcome(result, names) {
  if (!result) return 'No result';
  if (result.kind === 'tie') return 'A tie: no valid selection is left';
  if (result.kind === 'won') {
    const losers = names.filter((_, i) => i !== result.winner);
    return `${names[result.winner]} ate a marked cell and wins; ${list(losers)} lose${losers.length === 1 ? 's' : ''}`;
  }
  const why = { poisoned: 'ate the poison', timeout: 'ran out of time', abandoned: 'left the game' }[result.kind] || 'lost';
  const others = names.filter((_, i) => i !== result.loser);
  return `${names[result.loser]} ${why} and loses; ${list(others)} win${others.length === 1 ? 's' : ''}`;
}

/**
 * The board's name in the notation of the tools, with its options: `6x7 eat 1x2`,
 * `6x7 classic`, `5×6 edge breaks · normal play · no square bites`.
 */
export function describe(config) {
  const size = `${config.rows}×${config.cols}`;
  const game = { classic: `${size} classic`, breaks: `${size} edge breaks` }[config.variant]
    ?? `${size} eat ${config.eat[0]}×${config.eat[1]}`;
  return [game, config.play === 'normal' ? 'normal play' : '', config.no_square_bites ? 'no square bites' : '']
    .filter(Boolean).join(' · ');
}

/** The rules in force on a board, in sentences: how a move eats, who wins, what is banned. */
export function rulesText(b) {
  const how = {
    jchomp: `Each move eats a ${b.eat[0]}×${b.eat[1]} rectangle of uneaten cells.`,
    classic: 'Each move eats a cell and every cell below and right of it.',
    breaks: 'Edge breaks: each move names a cell in the poison\'s row or column and breaks the bar along the grid line on its near side, away from the poison.',
  }[b.variant];
  const end = b.normal
    ? 'Normal play: the poison cells are marked, not poisonous; whoever eats one wins and every other seat loses.'
    : 'Misère play: whoever eats the poison loses.';
  const squares = b.noSquares
    ? ' Square bites (a k×k block: 1, 4, 9 … cells) are banned; a seat with no other move left ties the game.'
    : '';
  return `${how} ${end}${squares}`;
}
