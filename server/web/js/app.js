// The page's entry: the connection, the seat and the account session kept in the browser's
// storage for this server, and the views behind the address's fragment: the lobby (`#/`), a
// room to play or watch (`#/room/ID`), the replay of a stored game (`#/game/ID`), the analysis
// board (`#/analysis`), the account panel (`#/account`), a player's profile (`#/players/NAME`),
// the leaderboards (`#/leaderboard`, `#/leaderboard/CATEGORY`, `…/bots`) and the tournaments
// (`#/tournaments`, `#/tournaments/ID`). A tournament game the connection is seated in opens
// its room from any view.

import { h } from './dom.js';
import { Net } from './net.js';
import { LobbyView } from './lobby.js';
import { GameView } from './game.js';
import { ReplayView } from './replay.js';
import { AnalysisView } from './analysis.js';
import { Session } from './session.js';
import { AccountView } from './account.js';
import { ProfileView } from './profile.js';
import { LeaderboardView } from './leaderboard.js';
import { TournamentsView } from './tournaments.js';
import { TournamentView } from './tournament.js';

/** The seat this browser holds on this server, if any: `{room, token}`. */
function storedSeat() {
  try {
    return JSON.parse(localStorage.getItem('jchomp.seat') || 'null');
  } catch {
    return null;
  }
}

const app = {
  /** The connection's standing: which room it is in, and as which seat (null: spectator). */
  session: { room: null, seat: null },
  /** The tournaments this connection entered or was seated by: its games come to it. */
  entered: new Set(),
  /** The last `tournament_game` told to this connection (with `last`, how the game the page
   * showed then ended), or null. */
  tournamentGame: null,
  view: null,
  send(msg) {
    app.net.send(msg);
  },
  go(hash) {
    if (location.hash === hash) route();
    else location.hash = hash;
  },
  name() {
    return localStorage.getItem('jchomp.name') || '';
  },
  setName(name) {
    localStorage.setItem('jchomp.name', name);
  },
  seat: storedSeat,
  /** Keeps a seat's token (and the tournament its game is of, if any). */
  keepSeat(room, token, tournament) {
    localStorage.setItem('jchomp.seat', JSON.stringify({ room, token, tournament }));
  },
  /** The tournament room `room`'s game is of, when this page was seated in it by one. */
  tournamentOf(room) {
    if (app.tournamentGame?.room === room) return app.tournamentGame.tournament;
    const held = storedSeat();
    return held?.room === room ? held.tournament ?? null : null;
  },
  forgetSeat() {
    localStorage.removeItem('jchomp.seat');
  },
  /** Shows a notice in the banner (errors from the server, the connection's state). */
  notice(text, kind = 'info') {
    const el = document.getElementById('notice');
    el.textContent = text;
    el.dataset.kind = kind;
    el.hidden = !text;
  },
};

/** The view the address's fragment names. */
function viewOf(hash) {
  const m = /^#\/(room|game|players|tournaments)\/([^/]+)$/.exec(hash);
  const arg = m ? decodeURIComponent(m[2]) : '';
  if (m && m[1] === 'room') return new GameView(app, arg);
  if (m && m[1] === 'game') return new ReplayView(app, arg);
  if (m && m[1] === 'players') return new ProfileView(app, arg);
  if (m && m[1] === 'tournaments') return new TournamentView(app, arg);
  const board = /^#\/leaderboard(?:\/([^/]+))?(\/bots)?$/.exec(hash);
  if (board) return new LeaderboardView(app, board[1] ? decodeURIComponent(board[1]) : undefined, !!board[2]);
  if (hash === '#/analysis') return new AnalysisView(app);
  if (hash === '#/account') return new AccountView(app);
  if (hash === '#/tournaments') return new TournamentsView(app);
  return new LobbyView(app);
}

function route() {
  const main = document.getElementById('main');
  app.view?.close?.();
  main.replaceChildren();
  app.view = viewOf(location.hash);
  main.append(app.view.el);
  app.view.start();
  document.title = app.view.title || 'JChomp';
}

/** Shows who the page is logged in as, in the header and in the view. */
function accountChanged() {
  const link = document.getElementById('to-account');
  link.textContent = app.account.loggedIn ? app.account.name : 'Log in';
  link.title = app.account.loggedIn ? 'your account' : 'log in or register';
  document.body.dataset.account = app.account.name ?? '';
  app.view?.accountChanged?.();
}

function onMessage(msg) {
  const asked = app.account.take(msg);
  if (asked) {
    app.view?.onAccount?.(msg, asked);
    return;
  }
  if (msg.type === 'tournament_game') {
    // The page may be on the last game's room, whose end the next one follows at once.
    app.tournamentGame = { ...msg, last: app.view?.ended?.() ?? null };
    app.entered.add(msg.tournament);
  } else if (msg.type === 'joined') {
    app.session = { room: msg.room, seat: msg.seat };
    app.keepSeat(msg.room, msg.token, app.tournamentOf(msg.room) ?? undefined);
  } else if (msg.type === 'left') {
    if (app.session.room === msg.room) app.session = { room: null, seat: null };
  } else if (msg.type === 'room' && app.session.room !== msg.room && app.session.seat === null) {
    app.session = { room: msg.room, seat: null };
  } else if (msg.type === 'error' && msg.code === 'bad_token') {
    app.forgetSeat();
  }
  app.view?.onMessage(msg);
  // A tournament seated the connection: its game is played wherever the page was.
  if (msg.type === 'joined' && app.tournamentGame?.room === msg.room) {
    const to = `#/room/${encodeURIComponent(msg.room)}`;
    if (location.hash !== to) location.hash = to;
  }
}

function onState(up, code) {
  document.body.dataset.online = up;
  app.session = { room: null, seat: null };
  // The tournaments' games went to the old connection: a new one enters again to get them.
  app.entered.clear();
  app.tournamentGame = null;
  if (up) {
    app.notice('');
    app.account.online();
    app.view?.online?.();
  } else if (code === 4001) {
    app.notice('Your seat was taken up in another window.', 'warn');
    const el = document.getElementById('notice');
    el.append(' ', h('button', { type: 'button', id: 'take-back', onclick: () => app.net.restart() }, 'Play here again'));
  } else {
    app.notice('Connection lost, reconnecting…', 'warn');
  }
}

app.account = new Session(app, accountChanged);
app.net = new Net(onMessage, onState);
window.addEventListener('hashchange', route);
route();
accountChanged();
