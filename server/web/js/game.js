// A room, to play in or to watch: the rules in force, the board with its preview of what a
// selection would eat (or why it is refused), a second click for poison in misère play, whose
// turn, each seat's clock and connection, the move list, the result, and the annotations when
// the room allows them. A tournament's game leads back to the tournament's page.

import { h } from './dom.js';
import { BoardView, legend } from './board.js';
import { newBoard, check, play, refusal, describe, outcome, rulesText } from './rules.js';
import { cellName, notationToggle } from './notation.js';
import { botTag, playerLink } from './ratings.js';

/** Joining a tournament again from a new connection, tried at most this often, this far apart. */
const REJOIN_TRIES = 10;
const REJOIN_PAUSE_MS = 500;

export class GameView {
  constructor(app, room) {
    this.app = app;
    this.room = room;
    this.title = `JChomp · room ${room}`;
    this.snap = null;
    this.annotations = false;
    this.armed = null;
    this.el = h('div', { class: 'game' });
    this.heading = h('h2', {}, 'Room ', h('code', {}, room));
    this.info = h('p', { class: 'info' });
    this.rules = h('p', { class: 'hint', id: 'rules' });
    this.turn = h('p', { class: 'turn', id: 'turn', role: 'status', 'aria-live': 'polite' });
    this.say = h('p', { class: 'say', id: 'preview', 'aria-live': 'polite' });
    this.seats = h('ol', { class: 'seats', id: 'seats', start: 0 });
    this.moves = h('ol', { class: 'moves', id: 'moves' });
    this.boardBox = h('div', { class: 'board-box' });
    this.noteBox = h('div', { class: 'notes', hidden: true });
    this.noteToggle = h('input', { type: 'checkbox', id: 'annotate', onchange: () => this.toggleNotes() });
    this.noteLabel = h('label', { class: 'check', hidden: true }, this.noteToggle, ' annotations');
    this.notation = notationToggle(() => this.renotate());
    this.leaveBtn = h('button', { type: 'button', id: 'leave', onclick: () => this.leave() }, 'Leave');
    this.rematchBtn = h('button', { type: 'button', id: 'rematch', class: 'primary', hidden: true, onclick: () => this.app.send({ type: 'rematch' }) }, 'Play again');
    this.rematchNote = h('p', { class: 'rematch', id: 'rematch-note', hidden: true });
    this.replayLink = h('a', { class: 'replay', id: 'replay-link', hidden: true }, 'Replay this game');
    /** The tournament this room's game is of, when the page was seated in it by one. */
    this.tournament = app.tournamentOf(room);
    const home = this.tournament ? `#/tournaments/${encodeURIComponent(this.tournament)}` : '#/';
    this.home = home;
    this.backBtn = h('a', { href: home, class: 'button primary', id: 'to-tournament', hidden: true }, 'Back to the tournament');
    const told = app.tournamentGame?.room === room ? app.tournamentGame : null;
    this.round = h('p', { class: 'hint', id: 't-round', hidden: !told },
      told ? `Tournament game, round ${told.round}.${told.last ? ` Your last game: ${told.last}` : ''}` : '');
    this.el.append(
      h('div', { class: 'bar' }, h('a', { href: home, class: 'back' }, this.tournament ? '← Tournament' : '← Lobby'), this.heading, this.notation.el, this.noteLabel, this.leaveBtn),
      this.info,
      this.round,
      this.rules,
      h('div', { class: 'play' },
        h('div', { class: 'main-col' }, this.turn, h('div', { class: 'again' }, this.backBtn, this.rematchBtn, this.replayLink, this.rematchNote), this.boardBox, this.say, this.noteBox),
        h('aside', { class: 'side' },
          h('h3', {}, 'Seats'), this.seats,
          h('h3', {}, 'Moves'), this.moves)),
    );
  }

  start() {
    this.clock = setInterval(() => this.tick(), 200);
    if (this.app.net.up) this.online();
  }

  close() {
    clearInterval(this.clock);
    const s = this.snap;
    // A spectator, or a seat whose game is over, leaves; a seat in play is kept (the lobby
    // links back to it).
    if (this.app.session.room === this.room && (this.app.session.seat === null || s?.status === 'finished')) {
      this.app.send({ type: 'leave' });
      this.app.session = { room: null, seat: null };
      if (this.app.seat()?.room === this.room) this.app.forgetSeat();
    }
  }

  online() {
    const held = this.app.seat();
    if (this.app.session.room === this.room) this.app.send({ type: 'sync' });
    else if (held && held.room === this.room) {
      this.app.send({ type: 'resume', token: held.token });
      this.rejoin();
    } else this.app.send({ type: 'spectate', room: this.room });
  }

  /** A tournament's seat taken back on a new connection (a reload, a lost one): entering again
   * has the tournament's next games sent here too; refused quietly when it is over or another
   * page plays them. */
  rejoin() {
    const t = this.tournament;
    if (!t || this.app.entered.has(t)) return;
    this.rejoining = t;
    this.rejoinTries = 0;
    this.app.send({ type: 'join_tournament', tournament: t });
  }

  /** A rejoin refused: tried again while the server still holds the old connection (it
   * notices a reload's closed one within moments), else given up. */
  rejoinRefused(code) {
    const t = this.rejoining;
    if (code !== 'already_entered' || ++this.rejoinTries > REJOIN_TRIES) {
      this.rejoining = null;
      return;
    }
    setTimeout(() => {
      if (this.rejoining === t && this.app.net.up) this.app.send({ type: 'join_tournament', tournament: t });
    }, REJOIN_PAUSE_MS);
  }

  /** How the tournament game shown ended, in words, once it has. */
  ended() {
    return this.tournament && this.snap?.status === 'finished' ? this.turn.textContent : null;
  }

  mySeat() {
    return this.app.session.room === this.room ? this.app.session.seat : null;
  }

  onMessage(msg) {
    const t0 = performance.now();
    switch (msg.type) {
      case 'room':
        if (msg.room === this.room) this.snapshot(msg);
        break;
      case 'moved':
        if (msg.room !== this.room || !this.snap) break;
        if (msg.version !== this.snap.version + 1) {
          this.app.send({ type: 'sync' });
          break;
        }
        this.moved(msg);
        this.view.el.dataset.drawMs = (performance.now() - t0).toFixed(2);
        break;
      case 'move_rejected':
        this.refused(msg.message, msg.reason);
        break;
      case 'analysis':
        if (msg.room === this.room && this.annotations && this.snap && msg.index === this.snap.moves.length) this.view.annotate(msg.moves);
        break;
      case 'tournament':
        if (msg.id !== this.rejoining) break;
        this.app.entered.add(msg.id);
        this.rejoining = null;
        break;
      case 'error':
        if (this.rejoining && (msg.code === 'already_entered' || msg.code === 'not_open')) {
          this.rejoinRefused(msg.code);
        } else if (msg.code === 'bad_token') {
          this.app.send({ type: 'spectate', room: this.room });
        } else if (msg.code === 'no_such_room') {
          this.turn.textContent = 'This room is gone.';
          this.turn.append(' ', h('a', { href: '#/' }, 'Back to the lobby'));
        } else {
          this.app.notice(msg.message, 'error');
        }
        break;
      case 'left':
        if (msg.room === this.room && this.app.session.room === null && location.hash.startsWith('#/room/')) this.app.go(this.home);
        break;
    }
  }

  snapshot(s) {
    const fresh = !this.snap || JSON.stringify(this.snap.config) !== JSON.stringify(s.config);
    this.snap = s;
    if (fresh) {
      this.board = newBoard(s.config);
      this.drawBoard();
    }
    this.board.eaten.fill(0);
    for (const [r, c] of s.eaten) this.board.eaten[r * this.board.cols + c] = 1;
    this.drawPosition();
    // The clocks run from what the server says is left (a page that joins or reloads mid-turn
    // shows the right time).
    const now = performance.now();
    const limit = s.config.move_time_ms;
    const left = s.to_move != null ? s.time_left_ms?.[s.to_move] : undefined;
    this.turnStart = limit && left != null ? now - (limit - left) : now;
    this.graceEnds = s.seats.map((seat) => (seat && seat.grace_left_ms != null ? now + seat.grace_left_ms : null));
    this.drawAll();
  }

  /** A new board view for the board (its notation may have changed), and the board's line. */
  drawBoard() {
    const s = this.snap;
    this.view = new BoardView(this.board, {
      onHover: (r, c) => this.preview(r, c),
      onLeave: () => this.unpreview(),
      onSelect: (r, c) => this.select(r, c),
    });
    this.boardBox.replaceChildren(this.view.el);
    this.notation.show(this.board);
    this.info.textContent = `${describe(s.config)} · poison ${s.config.poison.map(([r, c]) => cellName(this.board, r, c)).join(' ')}${s.config.move_time_ms ? ` · ${s.config.move_time_ms / 1000} s a move` : ''}${s.config.rated ? ' · rated' : ''}`;
    this.rules.textContent = rulesText(this.board);
  }

  /** Draws the board's eaten cells; the last move's cells come from replaying the moves. */
  drawPosition() {
    const replayed = newBoard(this.snap.config);
    let last = [];
    for (const m of this.snap.moves) last = play(replayed, m.row, m.col);
    this.view.redraw(last);
  }

  /** Redraws what names cells after the notation changed. */
  renotate() {
    if (!this.snap) return;
    this.drawBoard();
    this.drawPosition();
    this.moves.replaceChildren(...this.snap.moves.map((m, i) => this.moveItem(i, m)));
    this.askNotes();
  }

  moved(m) {
    const ate = play(this.board, m.row, m.col);
    this.view.drawMove(ate);
    const s = this.snap;
    s.version = m.version;
    s.to_move = m.to_move;
    s.status = m.status;
    s.result = m.result;
    s.moves.push({ seat: m.seat, row: m.row, col: m.col });
    this.turnStart = performance.now();
    this.armed = null;
    this.view.clearPreview();
    this.say.textContent = '';
    this.moves.append(this.moveItem(s.moves.length - 1, s.moves[s.moves.length - 1]));
    // Scrolls the list only, never the page (on a phone the list is below the board).
    this.moves.scrollTop = this.moves.scrollHeight;
    this.drawTurn();
    this.drawSeats();
    this.askNotes();
  }

  drawAll() {
    this.moves.replaceChildren(...this.snap.moves.map((m, i) => this.moveItem(i, m)));
    this.drawTurn();
    this.drawSeats();
    const allowed = this.snap.config.analysis || this.snap.status === 'finished';
    this.noteLabel.hidden = !allowed || this.snap.config.players !== 2;
    if (this.noteLabel.hidden && this.annotations) {
      this.annotations = false;
      this.noteToggle.checked = false;
      this.view.annotate([]);
    }
    this.askNotes();
  }

  name(i) {
    return this.snap.seats[i]?.name ?? `seat ${i + 1}`;
  }

  moveItem(i, m) {
    return h('li', {}, `${this.name(m.seat)}: ${cellName(this.board, m.row, m.col)}`);
  }

  drawTurn() {
    const s = this.snap, me = this.mySeat();
    this.el.dataset.status = s.status;
    this.el.dataset.toMove = s.to_move ?? '';
    this.el.dataset.moves = s.moves.length;
    if (s.status === 'waiting') {
      const free = s.seats.filter((x) => !x).length;
      this.turn.textContent = `Waiting for ${free} more player${free === 1 ? '' : 's'}.`;
    } else if (s.status === 'playing') {
      this.turn.textContent = s.to_move === me ? 'Your turn: pick a cell.' : `${this.name(s.to_move)} to move.`;
    } else {
      this.turn.textContent = `${outcome(s.result, s.seats.map((_, i) => this.name(i)))}.`;
    }
    this.turn.dataset.mine = s.status === 'playing' && s.to_move === me;
    // Once the game is over the seats may play again in this room.
    const asked = s.status === 'finished' ? s.rematch || [] : [];
    // A tournament plays its next game in a room of its own.
    this.rematchBtn.hidden = !(s.status === 'finished' && me !== null && !asked.includes(me)) || !!this.tournament;
    this.backBtn.hidden = !(s.status === 'finished' && this.tournament);
    this.rematchNote.hidden = !asked.length;
    // The server names the record a game is stored under (the room's id, then ROOM-2, …).
    this.replayLink.hidden = s.status !== 'finished';
    this.replayLink.href = `#/game/${encodeURIComponent(s.game || this.room)}`;
    this.rematchNote.textContent = asked.length
      ? `${asked.map((i) => this.name(i)).join(', ')} ${asked.length === 1 ? 'wants' : 'want'} to play again; the new game starts when every person has asked.`
      : '';
    this.leaveBtn.textContent = me !== null && s.status === 'playing' ? 'Resign' : 'Leave';
  }

  drawSeats() {
    const s = this.snap, me = this.mySeat();
    this.seats.replaceChildren(...s.seats.map((seat, i) => {
      const attrs = { 'data-seat': i, class: s.status === 'playing' && s.to_move === i ? 'to-move' : '' };
      if (!seat) return h('li', attrs, h('span', { class: 'free' }, 'free seat'));
      return h('li', attrs,
        h('span', { class: seat.connected ? 'dot on' : 'dot off', title: seat.connected ? 'connected' : 'disconnected', 'aria-label': seat.connected ? 'connected' : 'disconnected' }),
        ' ',
        // Every seat of a rated room is an account's, with a profile.
        s.config.rated ? playerLink(seat.name, seat.bot) : [seat.name, seat.bot ? [' ', botTag()] : ''],
        i === me ? h('span', { class: 'tag you' }, 'you') : '',
        seat.connected ? '' : h('span', { class: 'tag away' }, 'disconnected'),
        seat.connected ? '' : h('span', { class: 'grace', 'data-grace': i }),
        h('span', { class: 'clock', 'data-clock': i }),
      );
    }));
    this.tick();
  }

  tick() {
    const s = this.snap;
    if (!s) return;
    for (const el of this.seats.querySelectorAll('.grace')) {
      const end = this.graceEnds?.[+el.dataset.grace];
      el.textContent = end != null && s.status === 'playing'
        ? `loses in ${Math.ceil(Math.max(0, end - performance.now()) / 1000)} s unless it returns`
        : '';
    }
    const limit = s.config.move_time_ms;
    for (const el of this.seats.querySelectorAll('.clock')) {
      const i = +el.dataset.clock;
      if (!limit || s.status !== 'playing' || s.to_move !== i) {
        el.textContent = '';
        continue;
      }
      const left = Math.max(0, limit - (performance.now() - this.turnStart));
      el.textContent = `${(left / 1000).toFixed(left < 10000 ? 1 : 0)} s`;
      el.classList.toggle('low', left < 5000);
    }
  }

  preview(r, c) {
    if (!this.board) return;
    const res = check(this.board, r, c);
    this.view.preview(res);
    if (res.ok) {
      const eats = `${cellName(this.board, r, c)} eats ${res.cells.length} cell${res.cells.length === 1 ? '' : 's'}`;
      this.say.textContent = !res.poison ? `${eats}.`
        : this.board.normal ? `${eats} including a marked cell: whoever takes it wins.`
          : `${eats} including the poison: whoever takes it loses.`;
      this.say.dataset.kind = res.poison ? 'poison' : 'ok';
      this.say.dataset.reason = '';
    } else {
      this.refused(refusal(this.board, r, c, res.reason), res.reason);
    }
    if (this.armed !== null && this.armed !== r * this.board.cols + c) this.armed = null;
  }

  /**
   * Says why a selection is refused: `sentence` is the rules' wording (`refusal`, for the
   * preview) or the server's (`move_rejected`), which are the same.
   */
  refused(sentence, reason) {
    this.say.textContent = `Refused: ${sentence}.`;
    this.say.dataset.kind = 'refused';
    this.say.dataset.reason = reason;
  }

  unpreview() {
    this.view?.clearPreview();
  }

  select(r, c) {
    const s = this.snap, me = this.mySeat();
    if (!s || me === null) {
      this.say.textContent = 'You are watching: only the seats move.';
      return;
    }
    if (s.status !== 'playing') {
      this.say.textContent = s.status === 'waiting' ? 'The game has not started: seats are still free.' : 'The game is over.';
      return;
    }
    if (s.to_move !== me) {
      this.say.textContent = `Not your turn: ${this.name(s.to_move)} is to move.`;
      return;
    }
    const res = check(this.board, r, c);
    if (!res.ok) {
      this.preview(r, c);
      return;
    }
    const i = r * this.board.cols + c;
    if (res.poison && !this.board.normal && this.armed !== i) {
      this.armed = i;
      this.say.textContent = `${cellName(this.board, r, c)} eats the poison and you lose. Click it again (or press Enter) to take it anyway.`;
      this.say.dataset.kind = 'confirm';
      return;
    }
    this.armed = null;
    this.app.send({ type: 'move', row: r, col: c });
  }

  toggleNotes() {
    this.annotations = this.noteToggle.checked;
    this.noteBox.hidden = !this.annotations;
    this.noteBox.replaceChildren(this.annotations ? legend() : '');
    if (this.annotations) this.askNotes();
    else this.view?.annotate([]);
  }

  askNotes() {
    if (!this.annotations || !this.snap) return;
    this.view.annotate([]);
    this.app.send({ type: 'analyze', room: this.room, index: this.snap.moves.length });
  }

  leave() {
    const s = this.snap, me = this.mySeat();
    if (me !== null && s?.status === 'playing' && !confirm('Leaving a game in play loses it. Leave?')) return;
    this.app.send({ type: 'leave' });
    if (me !== null) this.app.forgetSeat();
  }
}
