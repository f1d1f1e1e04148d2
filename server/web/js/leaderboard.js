// The leaderboards (`#/leaderboard/CATEGORY`, `…/bots` for the bots'): a chooser of the
// category, a toggle between people and bots, and the board as `/api/leaderboard` returns it,
// best first, each name linking to its profile.

import { h } from './dom.js';
import { CATEGORIES, api, categoryName, playerLink, record, withDeviation } from './ratings.js';

const DEFAULT = 'jchomp:2';

export class LeaderboardView {
  constructor(app, category = DEFAULT, bots = false) {
    this.app = app;
    this.category = category;
    this.bots = bots;
    this.title = `JChomp · leaderboard ${category}`;
    this.el = h('div', { class: 'leaderboard' });
    const chooser = h('select', { id: 'category', onchange: () => this.go(chooser.value, this.bots) },
      ...CATEGORIES.map((c) => h('option', { value: c }, categoryName(c))));
    chooser.value = category;
    const toggle = h('input', { type: 'checkbox', id: 'bots', onchange: () => this.go(this.category, toggle.checked) });
    toggle.checked = bots;
    this.rows = h('tbody');
    this.note = h('p', { class: 'hint', id: 'board-note' });
    this.el.append(
      h('div', { class: 'bar' }, h('a', { href: '#/', class: 'back' }, '← Lobby'), h('h2', {}, 'Leaderboard')),
      h('div', { class: 'setup' }, h('label', { class: 'field' }, h('span', {}, 'Category'), chooser),
        h('label', { class: 'check' }, toggle, ' bots (people and bots are ranked apart)')),
      this.note,
      h('table', { class: 'list', id: 'board' },
        h('thead', {}, h('tr', {}, h('th', {}, '#'), h('th', {}, bots ? 'Bot' : 'Player'), h('th', {}, 'Rating'), h('th', {}, 'Games'), h('th', {}, 'Last rated game'))),
        this.rows));
  }

  go(category, bots) {
    this.app.go(`#/leaderboard/${encodeURIComponent(category)}${bots ? '/bots' : ''}`);
  }

  start() {
    // The API reads the category as it is written (`jchomp+normal:2`), without decoding.
    api(`/api/leaderboard?category=${this.category}&bots=${this.bots}`)
      .then((b) => this.draw(b))
      .catch((e) => this.rows.replaceChildren(h('tr', {}, h('td', { colspan: 5, class: 'form-error' }, e.message))));
  }

  onMessage() {}

  draw(b) {
    this.note.textContent = `The top ${b.size} ${b.bots ? 'bots' : 'people'} in ${categoryName(b.category)}: only settled ratings (not provisional) with a rated game in the last ${b.days} days.`;
    this.el.dataset.board = `${b.category}${b.bots ? '/bots' : ''}`;
    this.rows.replaceChildren(...(b.players.length ? b.players.map((p, i) => h('tr', { 'data-player': p.name },
      h('td', {}, String(i + 1)),
      h('td', {}, playerLink(p.name, b.bots)),
      h('td', { class: 'rating' }, withDeviation(b.category, p)),
      h('td', { class: 'record' }, record(p)),
      h('td', {}, new Date(p.last_ms).toLocaleDateString()))) : [h('tr', {}, h('td', { colspan: 5, class: 'empty' }, 'Nobody is listed yet.'))]));
  }
}
