// The analysis board's way to the server's analysis: the protocol analyses a room's position
// (`analyze` with `room` and `index`), so two private connections of this page take the two
// seats of a two-player room created with analysis on, play the moves that set a position up,
// and ask for the position after any number of them. A position that continues the moves
// played is reached by playing on, an earlier one by a smaller `index`; any other needs a new
// room (the old one is left, and the server stores it as an abandoned game).

import { Net } from './net.js';

const NAME = 'analysis board';

export class Scratch {
  /**
   * @param {(msg: object) => void} onAnalysis the `analysis` of the position last asked for
   * @param {(text: string) => void} onError a refusal or an error from the server, in words
   */
  constructor(onAnalysis, onError) {
    this.onAnalysis = onAnalysis;
    this.onError = onError;
    this.want = null;
    this.reset();
    this.seats = [
      new Net((m) => this.heard(0, m), (up) => this.state(up)),
      new Net((m) => this.heard(1, m), (up) => this.state(up)),
    ];
  }

  /** Forgets the room (a new one is made for the next request). */
  reset() {
    this.room = null;
    this.key = null;
    this.played = [];
    this.toMove = null;
    this.busy = false;
    this.asked = null;
  }

  /** Asks for the analysis of the position `moves` (`{row, col}`) reach from `config`'s start. */
  analyze(config, moves) {
    this.want = { config, moves, key: JSON.stringify(config) };
    this.asked = null;
    this.pump();
  }

  /** Leaves the room (its game ends at once rather than after the seats' grace) and hangs up. */
  close() {
    if (this.room) this.leave();
    for (const net of this.seats) net.close();
  }

  state(up) {
    // A lost connection loses its seat's standing: start again in a new room.
    if (!up && this.room) {
      this.leave();
      this.reset();
    }
    if (up) this.pump();
  }

  leave() {
    for (const net of this.seats) net.send({ type: 'leave' });
  }

  /** Whether the moves played so far continue into (or already pass through) the wanted ones. */
  onTheWay() {
    const w = this.want.moves, p = this.played, n = Math.min(w.length, p.length);
    for (let i = 0; i < n; i++) if (w[i].row !== p[i].row || w[i].col !== p[i].col) return false;
    return true;
  }

  /** Takes the next step towards the wanted analysis: a room, a move, or the question. */
  pump() {
    const w = this.want;
    if (!w || this.busy) return;
    if (!this.room || this.key !== w.key || !this.onTheWay()) {
      if (this.room) this.leave();
      this.reset();
      this.busy = true;
      this.key = w.key;
      this.seats[0].send({ type: 'create_room', name: NAME, config: { ...w.config, players: 2, analysis: true } });
    } else if (this.played.length < w.moves.length) {
      if (this.toMove === null) return;
      const m = w.moves[this.played.length];
      this.busy = true;
      this.seats[this.toMove].send({ type: 'move', row: m.row, col: m.col });
    } else if (!this.asked) {
      this.asked = { index: w.moves.length, want: w };
      this.seats[0].send({ type: 'analyze', room: this.room, index: w.moves.length });
    }
  }

  heard(seat, msg) {
    if (msg.type === 'joined' && seat === 0) {
      this.room = msg.room;
      this.seats[1].send({ type: 'join_room', room: msg.room, name: NAME });
    } else if (msg.type === 'room' && seat === 0 && msg.room === this.room && msg.status !== 'waiting' && this.toMove === null) {
      this.toMove = msg.to_move;
      this.busy = false;
      this.pump();
    } else if (msg.type === 'moved' && seat === 0 && msg.room === this.room) {
      this.played.push({ row: msg.row, col: msg.col });
      this.toMove = msg.to_move;
      this.busy = false;
      this.pump();
    } else if (msg.type === 'analysis' && msg.room === this.room && this.asked?.want === this.want && msg.index === this.asked.index) {
      this.onAnalysis(msg);
    } else if (msg.type === 'move_rejected' || msg.type === 'error') {
      this.busy = false;
      this.onError(msg.message);
    }
  }
}
