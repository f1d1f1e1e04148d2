// A player's profile (`#/players/NAME`), from `/api/players/NAME`: each category's rating
// with its deviation (marked provisional while it is), the chart of its history, the games
// won, lost and tied, and the recent rated games, each linking to its replay.

import { h } from './dom.js';
import { api, botTag, playerPath, categoryName, record, withDeviation } from './ratings.js';
import { historyChart } from './chart.js';

export class ProfileView {
  constructor(app, name) {
    this.app = app;
    this.name = name;
    this.title = `JChomp · ${name}`;
    this.el = h('div', { class: 'profile' });
    this.heading = h('h2', {}, name);
    this.body = h('div', { class: 'profile-body' }, h('p', { class: 'loading' }, 'Loading…'));
    this.el.append(h('div', { class: 'bar' }, h('a', { href: '#/', class: 'back' }, '← Lobby'), this.heading,
      h('a', { href: '#/leaderboard' }, 'Leaderboard')), this.body);
  }

  start() {
    api(`/api/players/${playerPath(this.name)}`)
      .then((p) => this.draw(p))
      .catch((e) => this.body.replaceChildren(h('p', { class: 'form-error', id: 'profile-error' }, e.message)));
  }

  onMessage() {}

  draw(p) {
    this.heading.replaceChildren(...[p.name, p.bot ? [' ', botTag()] : [], p.deleted ? [' ', h('span', { class: 'tag away' }, 'deleted')] : []].flat());
    this.el.dataset.player = p.name;
    const ratings = p.ratings.length
      ? p.ratings.map((r) => this.category(r))
      : [h('p', { class: 'empty' }, 'No rated games yet.')];
    const recent = p.recent.length
      ? h('ol', { class: 'recent', id: 'recent' }, ...p.recent.map((g) => h('li', {}, h('a', { href: `#/game/${encodeURIComponent(g)}`, class: 'replay' }, g))))
      : h('p', { class: 'empty' }, 'None yet.');
    this.body.replaceChildren(...ratings, h('h3', {}, 'Recent rated games'), recent);
  }

  /** One category's rating, counts and chart. */
  category(r) {
    return h('section', { class: 'category', 'data-category': r.category },
      h('h3', {}, categoryName(r.category)),
      h('p', { class: 'standing' },
        h('span', { class: 'rating' }, withDeviation(r.category, r)),
        r.provisional ? [' ', h('span', { class: 'tag provisional', title: 'too few games for a settled rating' }, 'provisional')] : '',
        ' · ', h('span', { class: 'record' }, record(r))),
      r.history.length ? historyChart(r.category, r.history) : '');
  }
}
