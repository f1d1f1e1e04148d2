// Ratings as the pages show them: the server's JSON API (`/api/players/NAME`,
// `/api/leaderboard`), the rating categories in words, a rating with its deviation, and a
// player's name linking to their profile, marked when it is a bot's.

import { h } from './dom.js';

/** Every category a game can be rated in: variant, rules, players (`jchomp+normal:2`). */
export const CATEGORIES = ['jchomp', 'classic'].flatMap((v) => ['', '+normal', '+no-square-bites', '+normal+no-square-bites']
  .flatMap((rules) => ['2', '3-4'].map((n) => `${v}${rules}:${n}`)));

/**
 * A player's name as a path segment, in the page's address and the API's: encoded, but for
 * the colon of the built-in levels' names (`level:1`), which the API reads as it is.
 */
export function playerPath(name) {
  return encodeURIComponent(name).replace(/%3A/gi, ':');
}

/** The JSON at an API path; throws the server's `error` (or the status) when it is not 200. */
export async function api(path) {
  const res = await fetch(path, { headers: { accept: 'application/json' } });
  const body = await res.json().catch(() => null);
  if (!res.ok) throw new Error(body?.error || `the server answered ${res.status}`);
  return body;
}

/** A category in words: `JChomp, normal play, 2 players`. */
export function categoryName(category) {
  const [game, players] = category.split(':');
  const [variant, ...rules] = game.split('+');
  const words = [variant === 'classic' ? 'Classic Chomp' : 'JChomp'];
  if (rules.includes('normal')) words.push('normal play');
  if (rules.includes('no-square-bites')) words.push('no square bites');
  words.push(`${(players || '').replace('-', '–')} players`);
  return words.join(', ');
}

/** A rating as shown: Glicko-2's (two players) whole, Weng–Lin's μ to a tenth. */
export function ratingText(category, value) {
  return category.endsWith(':2') ? String(Math.round(value)) : value.toFixed(1);
}

/** A rating with its deviation: `1623 ± 87`. */
export function withDeviation(category, r) {
  return `${ratingText(category, r.rating)} ± ${ratingText(category, r.deviation)}`;
}

/** Wins, losses and ties in words. */
export function record(r) {
  return `${r.wins} won, ${r.losses} lost, ${r.ties} tied`;
}

/** The `bot` tag that marks a bot's name wherever it is shown. */
export function botTag() {
  return h('span', { class: 'tag bot' }, 'bot');
}

/** A finished game's seat names joined by `sep`, a bot's (its index in `bots`) tagged. */
export function namesLine(names, bots = [], sep = ', ') {
  return names.flatMap((name, i) => [i ? sep : '', name, ...(bots.includes(i) ? [' ', botTag()] : [])]);
}

/** A player's name linking to their profile, with the bot tag for a bot. */
export function playerLink(name, bot) {
  const link = h('a', { href: `#/players/${playerPath(name)}`, class: 'player' }, name);
  return bot ? [link, ' ', botTag()] : [link];
}
