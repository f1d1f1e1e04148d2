// Who may enter a tournament and when it starts, as the create form asks for them: `entry`
// (anyone, people only, bots only) and `start` (at once with the built-in levels ticked, at a
// date and time in the reader's time zone, or when a number have entered).

import { h } from './dom.js';
import { field, num } from './boardform.js';

export const MINUTE_MS = 60000;
/** The time offered at first: this far ahead. */
const AHEAD_MS = 10 * MINUTE_MS;

/** `ms` as a `datetime-local` input's value, in the reader's time zone, to the second. */
export function localInput(ms) {
  return new Date(ms - new Date(ms).getTimezoneOffset() * MINUTE_MS).toISOString().slice(0, 19);
}

export class StartForm {
  /**
   * @param {HTMLElement} error where a value that cannot be sent is said
   * @param {() => void} changed called when who may enter changes (the levels are then offered
   *   or not)
   */
  constructor(error, changed) {
    this.error = error;
    this.entry = h('select', { id: 't-entry', onchange: changed },
      h('option', { value: 'anyone' }, 'anyone (people and bots)'),
      h('option', { value: 'people' }, 'people only'),
      h('option', { value: 'bots' }, 'bots only (bot accounts and built-in levels)'));
    this.start = h('select', { id: 't-start', onchange: () => this.startChanged() },
      h('option', { value: 'now' }, 'at once, with the built-in levels below'),
      h('option', { value: 'at' }, 'at a date and time'),
      h('option', { value: 'joined' }, 'when enough have entered'));
    this.at = h('input', { id: 't-at', type: 'datetime-local', step: 1, value: localInput(Date.now() + AHEAD_MS) });
    this.joined = num('t-joined', 4, 2, 64);
    this.atBox = field(`Starts at (${Intl.DateTimeFormat().resolvedOptions().timeZone} time)`, this.at);
    this.joinedBox = field('Entrants to start (built-in levels count)', this.joined);
    this.fields = [field('Who may enter', this.entry), field('Starts', this.start), this.atBox, this.joinedBox];
    this.startChanged();
  }

  /** The time for a start at a time, the number for a start when enough have entered. */
  startChanged() {
    this.atBox.hidden = this.start.value !== 'at';
    this.joinedBox.hidden = this.start.value !== 'joined';
  }

  /** Whether built-in levels may be entered. */
  levels() {
    return this.entry.value !== 'people';
  }

  /** `{entry, start}` as `create_tournament` takes them (`start` absent to begin at once), or
   * null after saying what is wrong. */
  value() {
    const out = { entry: this.entry.value };
    if (this.start.value === 'at') {
      const at = new Date(this.at.value).getTime();
      if (!Number.isFinite(at)) {
        this.error.textContent = 'choose the date and time the tournament starts';
        return null;
      }
      out.start = { at_ms: at };
    } else if (this.start.value === 'joined') {
      out.start = { when_joined: Math.round(+this.joined.value) };
    }
    return out;
  }
}
