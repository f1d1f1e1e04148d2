// The fields of a game's configuration, as the room form and the tournament form both ask for
// it: the board's size, the game (JChomp's eat size, classic Chomp or edge breaks), the rule
// options with a note on what they mean together, the players per game, the poison cells placed
// on a small board, the clock and rated (for a logged-in player only); and the configuration
// they make, as `create_room` and `create_tournament` take it.

import { h } from './dom.js';

// Rows and columns: JChomp boards are 4–15 each way; classic and edge-breaks bars 1–15, at
// least 2 cells (1×1 is the poison alone), the standard one 3×5.
const SIZES = { jchomp: [4, 15], classic: [1, 15], breaks: [1, 15] };
const VARIANT_NAMES = { classic: 'classic Chomp', breaks: 'edge breaks' };
const CLASSIC_MIN_CELLS = 2;

/** The built-in bot levels a seat (or a tournament) may be given. */
export const BOTS = ['random', 'greedy', 'level:1', 'level:2', 'level:3', 'level:4', 'level:5'];

/** A labelled field: the label's words above its input. */
export function field(label, input) {
  return h('label', { class: 'field' }, h('span', {}, label), input);
}

/** A whole-number input. */
export function num(id, value, min, max) {
  return h('input', { id, type: 'number', min, max, value, required: true, inputmode: 'numeric' });
}

export class BoardForm {
  /**
   * @param {HTMLElement} error where a refused choice is said (the form's error line)
   * @param {string} ratedWords what ticking *rated* means in this form
   */
  constructor(error, ratedWords) {
    this.error = error;
    this.poison = [[0, 0]];
    this.inputs = {
      rows: num('rows', 6, 4, 15),
      cols: num('cols', 7, 4, 15),
      variant: h('select', { id: 'variant' }, h('option', { value: 'jchomp' }, 'JChomp (eat a rectangle)'), h('option', { value: 'classic' }, 'classic Chomp'),
        h('option', { value: 'breaks' }, 'edge breaks (break a side off)')),
      eatRows: num('eat-rows', 1, 1, 3),
      eatCols: num('eat-cols', 2, 1, 3),
      players: num('players', 2, 2, 4),
      moveTime: h('input', { id: 'move-time', type: 'number', min: 0, step: 'any', value: 0, inputmode: 'decimal' }),
      rated: h('input', { id: 'rated', type: 'checkbox' }),
    };
    const i = this.inputs;
    this.options = new RuleOptions(i);
    /** What the chosen variant, options and eat size mean together, in words. */
    this.note = this.options.note;
    this.ratedWhy = h('span', { class: 'hint-inline', id: 'rated-why' });
    this.eatBox = h('span', { class: 'eat' }, field('Eat rows', i.eatRows), field('Eat columns', i.eatCols));
    this.picker = h('div', { class: 'picker', role: 'group', 'aria-label': 'poison cells: click to place or remove, 1 to 4' });
    for (const el of [i.rows, i.cols]) el.addEventListener('change', () => this.drawPicker());
    i.variant.addEventListener('change', () => this.variantChanged());
    /** The size, game, players and clock fields, in order. */
    this.fields = [field('Rows', i.rows), field('Columns', i.cols), field('Game', i.variant), this.eatBox,
      ...this.options.fields, field('Players', i.players), field('Seconds per move (0: no clock)', i.moveTime)];
    /** The rated choice and why it is (not) open. */
    this.ratedFields = [h('label', { class: 'check' }, i.rated, ` ${ratedWords}`), this.ratedWhy];
    /** The poison cells' picker. */
    this.poisonSet = h('fieldset', {}, h('legend', {}, 'Poison cells (1–4): click the board'), this.picker);
    this.drawPicker();
  }

  /** Rated is open to a logged-in player (`who`) only: says so to a guest, else `said`. */
  accountChanged(who, said = '') {
    const rated = this.inputs.rated;
    rated.disabled = who === null;
    if (who === null) rated.checked = false;
    this.ratedWhy.replaceChildren(...(who === null
      ? ['Rated games need an account: ', h('a', { href: '#/account' }, 'log in or register'), ' first.']
      : [said]));
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

  /** The players per game asked for, 2–4. */
  players() {
    return Math.min(4, Math.max(2, Math.round(+this.inputs.players.value) || 2));
  }

  /** The configuration the fields make; or null, what is wrong with it said in the form. */
  config() {
    const i = this.inputs;
    const [rows, cols] = this.size();
    if (i.variant.value !== 'jchomp' && rows * cols < CLASSIC_MIN_CELLS) {
      this.error.textContent = `${VARIANT_NAMES[i.variant.value]} needs at least ${CLASSIC_MIN_CELLS} cells, got ${rows}×${cols}`;
      return null;
    }
    const config = { rows, cols, players: Math.round(+i.players.value) || 2, poison: this.poison.map((p) => [...p]) };
    if (i.variant.value !== 'jchomp') config.variant = i.variant.value;
    else config.eat = [Math.round(+i.eatRows.value), Math.round(+i.eatCols.value)];
    const secs = +i.moveTime.value;
    if (secs > 0) config.move_time_ms = Math.round(secs * 1000);
    this.options.apply(config);
    if (i.rated.checked) config.rated = true;
    return config;
  }
}

/**
 * The rule options beside the variant: misère or normal play and the ban on
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

  /** Adds the chosen options to a configuration (the defaults are left out). */
  apply(config) {
    if (this.play.value === 'normal') config.play = 'normal';
    if (this.noSquares.checked) config.no_square_bites = true;
  }
}
