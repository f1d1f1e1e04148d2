#!/usr/bin/env node
// An example JChomp engine: the engine protocol (docs/ENGINE.md), Node's built-in modules only.
//
// It plays JChomp and classic Chomp with 2, 3 or 4 players: never poison while a safe selection
// exists; an immediate win (a safe selection after which the next seat has only poison) if there
// is one; else a safe selection that hands the next seat no such win; at random among equals,
// seeded by its `Seed` option.
'use strict';

const readline = require('node:readline');

const SEED_MAX = 2 ** 31 - 1;

/** Says something on standard error, which the runner logs and never reads as a reply. */
const warn = (text) => process.stderr.write(`engine.js: ${text}\n`);
/** Writes one line to the runner (synchronous on a pipe, so it leaves at once). */
const say = (line) => process.stdout.write(`${line}\n`);

/** A seeded generator of integers in 0..n-1: mulberry32, a public-domain 32-bit generator. */
function generator(seed) {
  let state = seed >>> 0;
  return (n) => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = Math.imul(state ^ (state >>> 15), state | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return Math.floor((((t ^ (t >>> 14)) >>> 0) / 2 ** 32) * n);
  };
}

/** Shuffles `list` in place (Fisher–Yates) with `random` from `generator`. */
function shuffle(list, random) {
  for (let i = list.length - 1; i > 0; i--) {
    const j = random(i + 1);
    [list[i], list[j]] = [list[j], list[i]];
  }
  return list;
}

/**
 * Whether every cell of a block (rows `from`..`to` by the columns set in `bits`) is uneaten on a
 * board (an array of row masks, bit c of row r set while cell (r, c) is uneaten).
 */
function fits(board, { from, to, bits }) {
  for (let r = from; r <= to; r++) if ((board[r] & bits) !== bits) return false;
  return true;
}

/** `board` after eating a block. */
const after = (board, { from, to, bits }) =>
  board.map((row, r) => (r >= from && r <= to ? row & ~bits : row));

/**
 * One configuration's selections: each anchor (`cell`) with the block that must be uneaten to
 * select it (`need`), the block it eats (`eat`) and whether that holds poison.
 */
class Rules {
  constructor(config) {
    const { rows, cols, players, poison } = config;
    const block = (from, to, c, width) => ({ from, to, bits: ((1 << width) - 1) << c });
    const classic = (config.variant ?? 'jchomp') === 'classic';
    const [er, ec] = classic ? [1, 1] : config.eat;
    const anchors = [];
    for (let r = 0; r + er <= rows; r++) {
      for (let c = 0; c + ec <= cols; c++) {
        const need = block(r, r + er - 1, c, ec);
        const eat = classic ? block(r, rows - 1, c, cols - c) : need;
        const inside = ([pr, pc]) => pr >= r && pr <= eat.to && ((eat.bits >> pc) & 1) === 1;
        anchors.push({ cell: [r, c], need, eat, poison: poison.some(inside) });
      }
    }
    this.players = players;
    this.full = Array(rows).fill((1 << cols) - 1);
    this.byCell = new Map(anchors.map((a) => [a.cell.join(','), a]));
    this.safe = anchors.filter((a) => !a.poison);
    this.poisoned = anchors.filter((a) => a.poison);
  }

  /** The anchors whose cells are all uneaten. */
  valid(board, anchors) { return anchors.filter((a) => fits(board, a.need)); }

  /** Whether the seat to move on `board` must eat poison (it has moves, none safe). */
  onlyPoison(board) {
    const open = (a) => fits(board, a.need);
    return !this.safe.some(open) && this.poisoned.some(open);
  }

  /** Whether the seat to move on `board` has a safe selection that leaves the next only poison. */
  hasWin(board) {
    return this.safe.some((a) => fits(board, a.need) && this.onlyPoison(after(board, a.eat)));
  }

  /** The board after `moves` ("ROW,COL" each); throws on a move the rules refuse. */
  replay(moves) {
    let board = this.full;
    for (const move of moves) {
      const anchor = this.byCell.get(move.split(',').map(Number).join(','));
      if (!anchor || anchor.poison || !fits(board, anchor.need)) {
        throw new Error(`move ${move} is not a valid selection in a game that goes on`);
      }
      board = after(board, anchor.eat);
    }
    return board;
  }
}

/** The selection to play on `board` (see the description at the top). */
function choose(rules, board, random, careful, deadline) {
  const safe = shuffle(rules.valid(board, rules.safe), random);
  if (safe.length === 0) {
    const poisoned = rules.valid(board, rules.poisoned);
    return poisoned[random(poisoned.length)].cell;
  }
  const win = safe.find((a) => rules.onlyPoison(after(board, a.eat)));
  if (win) return win.cell;
  if (careful) {
    for (const a of safe) {
      if (Date.now() > deadline) {
        warn('out of time: playing a safe selection unchecked');
        break;
      }
      if (!rules.hasWin(after(board, a.eat))) return a.cell;
    }
  }
  return safe[0].cell;
}

/** Milliseconds for this `go`: half the movetime, or a 20th of the clock plus half the inc. */
function budget(words, seat) {
  const value = (word, skip = 0) =>
    (words.includes(word) ? Number(words[words.indexOf(word) + 1 + skip]) : 0);
  if (words.includes('movetime')) return value('movetime') / 2;
  if (words.includes('clocks')) return value('clocks', seat) / 20 + value('inc') / 2;
  return 2000; // no clock: two seconds at most
}

// The engine's state: its options, its random generator, the last valid `position` as
// { rules, board, toMove }, and the answer to a `go infinite`, held until `stop`.
const state = { seed: 0, careful: true, random: generator(0), game: null, pending: null };

/** One handler per command, named for its first word; each gets the words of the line. */
const commands = {
  jep(words) {
    if (words.length !== 2 || words[1] !== '1') {
      say('jeperror unsupported version');
      process.exit(0);
    }
    say('id name Example (Node)');
    say('id author The JChomp project');
    say(`option name Seed type spin default 0 min 0 max ${SEED_MAX}`);
    say('option name Careful type check default true');
    say('variants jchomp classic');
    say('players 2 3 4');
    say('jepok');
  },
  setoption(words) {
    const [name, value] = [words[2], words.slice(4).join(' ')];
    if (name === 'Seed' && /^\d+$/.test(value)) state.seed = Math.min(Number(value), SEED_MAX);
    else if (name === 'Careful' && /^(true|false)$/.test(value)) state.careful = value === 'true';
    else warn(`cannot set option ${name} to ${value}`);
  },
  isready: () => say('readyok'),
  newgame: () => Object.assign(state, { random: generator(state.seed), game: null }),
  position(words) {
    state.game = null;
    const rules = new Rules(JSON.parse(words[2]));
    const moves = words.slice(4);
    state.game = { rules, board: rules.replay(moves), toMove: moves.length % rules.players };
  },
  go(words) {
    if (!state.game) return warn('go without a valid position: no answer');
    const { rules, board, toMove } = state.game;
    const seat = Number(words[words.indexOf('seat') + 1]);
    if (seat !== toMove) warn(`go seat ${seat}, but the moves say seat ${toMove} is to move`);
    const deadline = Date.now() + budget(words, seat);
    const [row, col] = choose(rules, board, state.random, state.careful, deadline);
    if (words.includes('infinite')) state.pending = `bestmove ${row},${col}`;
    else say(`bestmove ${row},${col}`);
  },
  stop() {
    if (state.pending) say(state.pending);
    state.pending = null;
  },
  quit: () => process.exit(0),
};

const input = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
input.on('line', (line) => {
  const words = line.trim().split(/\s+/);
  if (words[0] === '') return;
  if (!Object.hasOwn(commands, words[0])) return warn(`ignored: ${line.trim().slice(0, 200)}`);
  try {
    commands[words[0]](words);
  } catch (e) {
    warn(`cannot read ${JSON.stringify(line.trim().slice(0, 200))}: ${e.message}`);
  }
});
input.on('close', () => process.exit(0));
