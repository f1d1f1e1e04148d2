// The page's entry: the connection, the seat kept in the browser's storage for this server,
// and the three views behind the address's fragment: the lobby (`#/`), a room to play or
// watch (`#/room/ID`), the replay of a stored game (`#/game/ID`) and the analysis board
// (`#/analysis`).

import { h } from './dom.js';
import { Net } from './net.js';
import { LobbyView } from './lobby.js';
import { GameView } from './game.js';
import { ReplayView } from './replay.js';
import { AnalysisView } from './analysis.js';

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
  keepSeat(room, token) {
    localStorage.setItem('jchomp.seat', JSON.stringify({ room, token }));
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

function route() {
  const main = document.getElementById('main');
  const m = /^#\/(room|game)\/([^/]+)$/.exec(location.hash);
  const prev = app.view;
  prev?.close?.();
  main.replaceChildren();
  if (m && m[1] === 'room') app.view = new GameView(app, decodeURIComponent(m[2]));
  else if (m && m[1] === 'game') app.view = new ReplayView(app, decodeURIComponent(m[2]));
  else if (location.hash === '#/analysis') app.view = new AnalysisView(app);
  else app.view = new LobbyView(app);
  main.append(app.view.el);
  app.view.start();
  document.title = app.view.title || 'JChomp';
}

function onMessage(msg) {
  if (msg.type === 'joined') {
    app.session = { room: msg.room, seat: msg.seat };
    app.keepSeat(msg.room, msg.token);
  } else if (msg.type === 'left') {
    if (app.session.room === msg.room) app.session = { room: null, seat: null };
  } else if (msg.type === 'room' && app.session.room !== msg.room && app.session.seat === null) {
    app.session = { room: msg.room, seat: null };
  } else if (msg.type === 'error' && msg.code === 'bad_token') {
    app.forgetSeat();
  }
  app.view?.onMessage(msg);
}

function onState(up, code) {
  document.body.dataset.online = up;
  app.session = { room: null, seat: null };
  if (up) {
    app.notice('');
    app.view?.online?.();
  } else if (code === 4001) {
    app.notice('Your seat was taken up in another window.', 'warn');
    const el = document.getElementById('notice');
    el.append(' ', h('button', { type: 'button', id: 'take-back', onclick: () => app.net.restart() }, 'Play here again'));
  } else {
    app.notice('Connection lost, reconnecting…', 'warn');
  }
}

app.net = new Net(onMessage, onState);
window.addEventListener('hashchange', route);
route();
