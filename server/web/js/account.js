// The account panel (`#/account`): log in or register as a guest; once logged in, log out
// (here or everywhere), change the password, make a bot account or renew its token (shown
// once), and delete the account. Every answer and refusal is said in words.

import { h } from './dom.js';
import { playerLink } from './ratings.js';

const NAME_RULE = '3–20 letters, digits, _ or -, beginning with a letter';
const PASSWORD_RULE = 'at least 8 characters';

/** What each request's success says (`bot_token` and `account` after a login are drawn apart). */
const DONE = {
  register: 'Registered: you are logged in.',
  login: 'Logged in.',
  change_password: 'Password changed: your other sessions have ended.',
};

export class AccountView {
  constructor(app) {
    this.app = app;
    this.title = 'JChomp · account';
    this.el = h('div', { class: 'account' });
    this.say = h('p', { class: 'form-error', id: 'account-msg', role: 'alert' });
    this.body = h('div');
    this.el.append(h('div', { class: 'bar' }, h('a', { href: '#/', class: 'back' }, '← Lobby'), h('h2', {}, 'Account')), this.say, this.body);
    this.draw();
  }

  start() {}

  onMessage() {}

  accountChanged() {
    this.draw();
  }

  draw() {
    this.body.replaceChildren(...(this.app.account.loggedIn ? this.member() : this.guest()));
  }

  /** A labelled input. */
  input(id, label, attrs) {
    const el = h('input', { id, required: true, ...attrs });
    return [el, h('label', { class: 'field' }, h('span', {}, label), el)];
  }

  /** A form whose submit sends `msg()` as an account request (when it returns one). */
  form(id, children, msg) {
    const f = h('form', { id, class: 'fields', novalidate: true }, ...children);
    f.addEventListener('submit', (e) => {
      e.preventDefault();
      const m = msg(e.submitter?.value);
      if (m) this.send(m);
    });
    return f;
  }

  send(msg) {
    this.say.textContent = '';
    this.say.dataset.kind = '';
    this.app.account.request(msg);
  }

  guest() {
    const [name, nameField] = this.input('acct-name', 'Name', { maxlength: 20, autocomplete: 'username' });
    const [pass, passField] = this.input('acct-password', 'Password', { type: 'password', autocomplete: 'current-password' });
    const form = this.form('login-form', [nameField, passField,
      h('button', { type: 'submit', id: 'login', value: 'login', class: 'primary' }, 'Log in'),
      h('button', { type: 'submit', id: 'register', value: 'register' }, 'Register')],
    (kind) => {
      if (!name.value.trim() || !pass.value) return this.refuse('enter a name and a password');
      return { type: kind === 'register' ? 'register' : 'login', name: name.value.trim(), password: pass.value };
    });
    return [
      h('p', {}, 'You play as a guest. An account keeps your name and a rating for rated games. A new name is ', NAME_RULE, '; a password ', PASSWORD_RULE, '.'),
      form,
    ];
  }

  member() {
    const a = this.app.account;
    const [old, oldField] = this.input('old-password', 'Current password', { type: 'password', autocomplete: 'current-password' });
    const [neu, newField] = this.input('new-password', 'New password', { type: 'password', autocomplete: 'new-password' });
    const [bot, botField] = this.input('bot-name', 'Bot account name', { maxlength: 20 });
    const [del, delField] = this.input('delete-password', 'Password', { type: 'password', autocomplete: 'current-password' });
    this.botToken = h('div', { id: 'bot-token-box', hidden: true });
    return [
      h('p', { id: 'account-state' }, 'Logged in as ', ...playerLink(a.name, false), '.'),
      h('div', { class: 'again' },
        h('button', { type: 'button', id: 'logout', onclick: () => this.send({ type: 'logout' }) }, 'Log out'),
        h('button', { type: 'button', id: 'logout-all', onclick: () => this.send({ type: 'logout', everywhere: true }) }, 'Log out everywhere')),
      h('h3', {}, 'Change password'),
      this.form('password-form', [oldField, newField, h('button', { type: 'submit', id: 'change-password' }, 'Change')],
        () => ({ type: 'change_password', old: old.value, new: neu.value })),
      h('h3', {}, 'Bot accounts'),
      h('p', { class: 'hint' }, 'A bot account plays with its API token (it sends ', h('code', {}, 'authenticate'), ' with it). The token is shown once; a new one ends the old.'),
      this.form('bot-form', [botField,
        h('button', { type: 'submit', id: 'create-bot', value: 'create' }, 'Create bot'),
        h('button', { type: 'submit', id: 'renew-bot', value: 'renew' }, 'New token')],
      (kind) => {
        if (!bot.value.trim()) return this.refuse('enter the bot account\'s name');
        return kind === 'renew' ? { type: 'renew_bot_token', bot: bot.value.trim() } : { type: 'create_bot', name: bot.value.trim() };
      }),
      this.botToken,
      h('h3', {}, 'Delete account'),
      h('p', { class: 'hint' }, 'Deletes this account and its bot accounts; their names stay on their games.'),
      this.form('delete-form', [delField, h('button', { type: 'submit', id: 'delete-account' }, 'Delete account')],
        () => (confirm(`Delete the account ${a.name} for good?`) ? { type: 'delete_account', password: del.value } : null)),
    ];
  }

  /** Says why a form is not sent. */
  refuse(why) {
    this.say.textContent = why;
    this.say.dataset.kind = 'refused';
    return null;
  }

  /** An answer to an account request, or its refusal. */
  onAccount(msg, asked) {
    if (msg.type === 'error') {
      if (asked !== 'authenticate') this.refuse(msg.message);
      return;
    }
    this.say.dataset.kind = 'ok';
    if (msg.type === 'bot_token') {
      this.say.textContent = '';
      this.botToken.hidden = false;
      this.botToken.replaceChildren(h('p', {}, `The API token of ${msg.bot}, shown this once: `, h('code', { id: 'bot-token' }, msg.token)));
    } else if (msg.type === 'logged_out') {
      this.say.textContent = asked === 'delete_account' ? 'Account deleted.' : msg.sessions > 1 ? `Logged out: ${msg.sessions} sessions ended.` : 'Logged out.';
    } else {
      this.say.textContent = DONE[asked] || '';
    }
  }
}
