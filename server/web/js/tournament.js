// One tournament's page (`#/tournaments/ID`), redrawn from every `tournament` view the server
// pushes to its watchers: its format, board and state (with the entry rule and start of one
// still taking entrants, and Join/Withdraw for a logged-in player then), the standings, the
// crosstable of a round robin, the games in play (each a click from watching it) and the
// finished ones (each linking to its replay).

import { h } from './dom.js';
import { describe, outcome } from './rules.js';
import { botTag } from './ratings.js';
import { formatName } from './tournaments.js';

const ENTRY = { anyone: 'open to anyone', people: 'people only', bots: 'bots only' };

/** Points as a score sheet writes them: `2`, `1½`, `½`. */
export function pointsText(p) {
  const whole = Math.floor(p);
  return p === whole ? String(p) : `${whole || ''}½`;
}

/** When a tournament still taking entrants starts, in words. */
function startWords(start) {
  if (start?.at_ms !== undefined) return `starts at ${new Date(start.at_ms).toLocaleString()}`;
  if (start?.when_joined !== undefined) return `starts when ${start.when_joined} have entered`;
  return '';
}

export class TournamentView {
  constructor(app, id) {
    this.app = app;
    this.id = id;
    this.view = null;
    this.title = `JChomp · tournament ${id}`;
    this.el = h('div', { class: 'tournament' });
    this.heading = h('h2', {}, 'Tournament ', h('code', {}, id));
    this.info = h('p', { class: 'info', id: 't-info' });
    this.entry = h('div', { class: 'again', id: 't-entry' });
    this.body = h('div', { class: 'tournament-body' }, h('p', { class: 'loading' }, 'Loading…'));
    this.standingsBox = h('div', { class: 'wide' });
    this.crossHead = h('h3', { hidden: true }, 'Crosstable');
    this.crossBox = h('div', { class: 'wide' });
    this.playing = h('ul', { class: 'games', id: 'playing' });
    this.finished = h('ol', { class: 'games', id: 'finished' });
    this.sections = [h('h3', {}, 'Standings'), this.standingsBox, this.crossHead, this.crossBox,
      h('h3', {}, 'Games in play'), this.playing, h('h3', {}, 'Finished games'), this.finished];
    this.el.append(h('div', { class: 'bar' }, h('a', { href: '#/tournaments', class: 'back' }, '← Tournaments'), this.heading),
      this.info, this.entry, this.body);
  }

  start() {
    if (this.app.net.up) this.online();
  }

  online() {
    this.app.send({ type: 'watch_tournament', tournament: this.id });
  }

  onMessage(msg) {
    if (msg.type === 'tournament' && msg.id === this.id) this.draw(msg);
    else if (msg.type === 'error' && msg.code === 'no_such_tournament') {
      this.info.replaceChildren();
      this.body.replaceChildren(h('p', { class: 'form-error', id: 'tournament-error' }, `No tournament has the id ${this.id}. `,
        h('a', { href: '#/tournaments' }, 'See the tournaments')));
    } else if (msg.type === 'error') this.app.notice(msg.message, 'error');
  }

  accountChanged() {
    if (this.view) this.drawEntry(this.view);
  }

  draw(v) {
    this.view = v;
    const spec = v.spec, c = spec.config;
    this.heading.replaceChildren(spec.name);
    this.el.dataset.status = v.status;
    this.el.dataset.finished = v.games.filter((g) => g.result).length;
    this.info.replaceChildren([formatName(spec.format), describe(c), `${c.players} players a game`,
      c.move_time_ms ? `${c.move_time_ms / 1000} s a move` : '', c.rated ? 'rated' : '',
      spec.entry ? ENTRY[spec.entry] ?? spec.entry : '', v.status === 'open' ? startWords(spec.start) : '',
      v.status === 'open' ? 'taking entrants' : v.status === 'playing' ? `round ${v.round}` : v.status].filter(Boolean).join(' · '));
    this.drawEntry(v);
    if (!this.body.contains(this.playing)) this.body.replaceChildren(...this.sections);
    this.standingsBox.replaceChildren(this.standings(v));
    const cross = v.crosstable?.length > 0;
    this.crossHead.hidden = !cross;
    this.crossBox.replaceChildren(...(cross ? [this.crosstable(v)] : []));
    this.drawPlaying(v.games.filter((g) => !g.result));
    this.finished.replaceChildren(...v.games.filter((g) => g.result).map((g) => h('li', { 'data-game': g.game },
      `round ${g.round}: ${outcome(g.result, g.seats)} `, h('a', { href: `#/game/${encodeURIComponent(g.game)}`, class: 'replay' }, 'Replay'))));
  }

  /** The games in play, each with its Watch link; a game still in play keeps its element, so
   * that a click on it is not lost to a redraw. */
  drawPlaying(games) {
    const kept = new Map([...this.playing.children].map((li) => [li.dataset.game, li]));
    this.playing.replaceChildren(...(games.length ? games.map((g) => kept.get(g.game) ?? h('li', { 'data-game': g.game },
      `round ${g.round}: ${g.seats.join(', ')} `, h('a', { href: `#/room/${encodeURIComponent(g.game)}`, class: 'watch' }, 'Watch')))
      : [h('li', { class: 'empty' }, 'None.')]));
  }

  /** Join or Withdraw, for a logged-in player while the tournament takes entrants. */
  drawEntry(v) {
    const who = this.app.account.name;
    const send = (type) => this.app.send({ type, tournament: this.id });
    this.entry.replaceChildren(...(who === null || v.status !== 'open' ? [] : v.entrants.includes(who)
      ? [h('button', { type: 'button', id: 't-withdraw', onclick: () => send('withdraw_tournament') }, 'Withdraw')]
      : [h('button', { type: 'button', id: 't-join', class: 'primary', onclick: () => send('join_tournament') }, 'Join')]));
  }

  standings(v) {
    return h('table', { class: 'sheet', id: 'standings' },
      h('thead', {}, h('tr', {}, ...['#', 'Entrant', 'Points', 'Games', 'W / T / L', 'Performance'].map((t) => h('th', {}, t)))),
      h('tbody', {}, ...v.standings.map((s, i) => h('tr', { 'data-name': s.name },
        h('td', {}, String(i + 1)), h('td', {}, s.name, s.bot ? [' ', botTag()] : ''),
        h('td', { class: 'points' }, pointsText(s.points)), h('td', {}, String(s.games)),
        h('td', {}, `${s.wins} / ${s.ties} / ${s.losses}`), h('td', {}, String(s.performance))))));
  }

  /** Row `i`, column `j`: what entrant `i` scored against entrant `j` (entry order). */
  crosstable(v) {
    const n = v.entrants.length;
    return h('table', { class: 'sheet', id: 'crosstable' },
      h('thead', {}, h('tr', {}, h('th', {}, '#'), h('th', {}, 'Entrant'), ...v.entrants.map((e, j) => h('th', { title: e }, String(j + 1))))),
      h('tbody', {}, ...v.entrants.map((e, i) => h('tr', { 'data-name': e },
        h('td', {}, String(i + 1)), h('th', {}, e),
        ...Array.from({ length: n }, (_, j) => {
          const p = v.crosstable[i]?.[j];
          return h('td', { class: i === j ? 'cross self' : 'cross' }, i === j ? '×' : p === null || p === undefined ? '·' : pointsText(p));
        })))));
  }
}
