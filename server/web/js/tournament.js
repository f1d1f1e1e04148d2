// One tournament's page (`#/tournaments/ID`), redrawn from every `tournament` view the server
// pushes to its watchers: its format, board and state (the entry rule and start, in local time,
// of one still taking entrants; why one was cancelled), entering it (Join/Withdraw while it is
// open; for an entrant while it plays, Rejoin from a new page or back to the game in play),
// the standings (bots and withdrawn entrants marked), the crosstable of a round robin, the
// games in play (each a click from watching it) and the finished ones (each linking to its
// replay).

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

/** When a tournament still taking entrants starts, in words (its time in the reader's). */
function startWords(v) {
  if (v.starts_at_ms != null) return `starts at ${new Date(v.starts_at_ms).toLocaleString()}`;
  const n = v.spec.start?.when_joined;
  return n !== undefined ? `starts when ${n} have entered (${v.entrants.length} so far)` : '';
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
    this.cancelled = h('p', { class: 'form-error', id: 't-cancelled', hidden: true });
    this.entry = h('div', { class: 'again', id: 't-entry' });
    this.entryError = h('p', { class: 'form-error', id: 't-entry-error', role: 'alert' });
    /** A join or withdrawal sent and not answered yet, so that its refusal shows by its button. */
    this.asked = null;
    this.body = h('div', { class: 'tournament-body' }, h('p', { class: 'loading' }, 'Loading…'));
    this.standingsBox = h('div', { class: 'wide' });
    this.crossHead = h('h3', { hidden: true }, 'Crosstable');
    this.crossBox = h('div', { class: 'wide' });
    this.playing = h('ul', { class: 'games', id: 'playing' });
    this.finished = h('ol', { class: 'games', id: 'finished' });
    this.sections = [h('h3', {}, 'Standings'), this.standingsBox, this.crossHead, this.crossBox,
      h('h3', {}, 'Games in play'), this.playing, h('h3', {}, 'Finished games'), this.finished];
    this.el.append(h('div', { class: 'bar' }, h('a', { href: '#/tournaments', class: 'back' }, '← Tournaments'), this.heading),
      this.info, this.cancelled, this.entry, this.entryError, this.body);
  }

  start() {
    if (this.app.net.up) this.online();
  }

  online() {
    this.app.send({ type: 'watch_tournament', tournament: this.id });
  }

  onMessage(msg) {
    if (msg.type === 'tournament' && msg.id === this.id) {
      if (this.asked === 'join_tournament' && msg.entrants.includes(this.app.account.name)) this.app.entered.add(this.id);
      this.asked = null;
      this.draw(msg);
    } else if (msg.type === 'error' && this.asked) this.refused(msg);
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
      spec.entry ? ENTRY[spec.entry] ?? spec.entry : '', v.status === 'open' ? startWords(v) : '',
      v.status === 'open' ? 'taking entrants' : v.status === 'playing' ? `round ${v.round}` : v.status].filter(Boolean).join(' · '));
    this.cancelled.hidden = v.status !== 'cancelled';
    this.cancelled.textContent = v.cancelled ? `Cancelled: ${v.cancelled}.` : 'Cancelled.';
    this.drawEntry(v);
    if (!this.body.contains(this.playing)) this.body.replaceChildren(...this.sections);
    this.standingsBox.replaceChildren(this.standings(v));
    const cross = v.crosstable?.length > 0;
    this.crossHead.hidden = !cross;
    this.crossBox.replaceChildren(...(cross ? [this.crosstable(v)] : []));
    this.drawPlaying(v.games.filter((g) => !g.result));
    // A long tournament's views list its recent games; the API lists them all.
    const earlier = v.games_from ? [h('li', { class: 'earlier' }, `${v.games_from} earlier games: `,
      h('a', { href: `/api/tournaments/${encodeURIComponent(v.id)}` }, 'all games (JSON)'))] : [];
    this.finished.replaceChildren(...earlier, ...v.games.filter((g) => g.result).map((g) => h('li', { 'data-game': g.game },
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

  /** What the page's player may do about entering: Join (a guest is told by the server to log
   * in) or Withdraw while it is open; while it plays, an entrant not withdrawn goes back to its
   * game in play, or, from a page that has not entered, joins again to be handed its seats. */
  drawEntry(v) {
    const who = this.app.account.name;
    const me = v.standings.find((s) => s.name === who);
    const entered = who !== null && v.entrants.includes(who);
    const withdraw = this.button('withdraw_tournament', 'Withdraw', 't-withdraw');
    let items = [];
    if (v.status === 'open') items = [entered ? withdraw : this.button('join_tournament', 'Join', 't-join', true)];
    else if (v.status === 'playing' && entered && !me?.withdrawn) items = [this.playingEntry(v), withdraw];
    else if (me?.withdrawn) items = [h('span', { class: 'hint-inline' }, 'You withdrew.')];
    this.entry.replaceChildren(...items);
  }

  /** An entrant's way to its games while the tournament plays. */
  playingEntry(v) {
    if (!this.app.entered.has(this.id)) return this.button('join_tournament', 'Rejoin', 't-join', true);
    const g = this.app.tournamentGame;
    const inPlay = g?.tournament === this.id && v.games.some((x) => x.game === g.room && !x.result);
    return inPlay
      ? h('a', { href: `#/room/${encodeURIComponent(g.room)}`, class: 'button primary', id: 't-my-game' }, 'Back to my game')
      : h('span', { class: 'hint-inline', id: 't-next' }, 'You are entered: your next game opens by itself.');
  }

  /** A button sending `type` for this tournament. */
  button(type, text, id, primary = false) {
    return h('button', { type: 'button', id, class: primary ? 'primary' : '', onclick: () => this.ask(type) }, text);
  }

  ask(type) {
    const late = type === 'withdraw_tournament' && this.view?.status === 'playing';
    if (late && !confirm('Withdrawing now pairs you no more: the games you played still count. Withdraw?')) return;
    this.entryError.replaceChildren();
    this.asked = type;
    this.app.send({ type, tournament: this.id });
  }

  /** A join or withdrawal refused: the server's words (with a way to log in for a guest). */
  refused(msg) {
    this.asked = null;
    const login = msg.code === 'forbidden' && this.app.account.name === null;
    this.entryError.replaceChildren(msg.message, ...(login ? ['. ', h('a', { href: '#/account' }, 'Log in or register')] : []));
  }

  standings(v) {
    return h('table', { class: 'sheet', id: 'standings' },
      h('thead', {}, h('tr', {}, ...['#', 'Entrant', 'Points', 'Games', 'W / T / L', 'Performance'].map((t) => h('th', {}, t)))),
      h('tbody', {}, ...v.standings.map((s, i) => h('tr', { 'data-name': s.name },
        h('td', {}, String(i + 1)), h('td', {}, s.name, s.bot ? [' ', botTag()] : '', s.withdrawn ? [' ', h('span', { class: 'tag away' }, 'withdrawn')] : ''),
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
