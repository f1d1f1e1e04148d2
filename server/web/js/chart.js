// A rating's history as an inline SVG chart: one point per rated game (coloured and shaped by
// its outcome, with the rating in its tooltip), the line through them, the band of one
// deviation around it, and the lowest and highest values on the axis.

import { ratingText } from './ratings.js';

const NS = 'http://www.w3.org/2000/svg';
const W = 560, H = 180, PAD = { left: 48, right: 12, top: 12, bottom: 20 };

/** An SVG element with its attributes and children. */
function s(tag, attrs = {}, ...children) {
  const el = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
  el.append(...children);
  return el;
}

/** The chart of `history` (the profile API's points, oldest first) in `category`. */
export function historyChart(category, history) {
  const lows = history.map((p) => p.rating - p.deviation), highs = history.map((p) => p.rating + p.deviation);
  const lo = Math.min(...lows), hi = Math.max(...highs);
  const span = hi - lo || 1;
  const x = (i) => (history.length === 1 ? (PAD.left + W - PAD.right) / 2 : PAD.left + (i * (W - PAD.left - PAD.right)) / (history.length - 1));
  const y = (v) => PAD.top + ((hi - v) * (H - PAD.top - PAD.bottom)) / span;
  const at = (i, v) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`;
  const band = [...history.map((p, i) => at(i, p.rating + p.deviation)), ...history.map((p, i) => at(i, p.rating - p.deviation)).reverse()];
  const svg = s('svg', { class: 'chart', viewBox: `0 0 ${W} ${H}`, role: 'img', 'aria-label': `rating after each of ${history.length} rated games` },
    s('line', { class: 'axis', x1: PAD.left, y1: H - PAD.bottom, x2: W - PAD.right, y2: H - PAD.bottom }),
    s('text', { class: 'label', x: PAD.left - 4, y: PAD.top + 4, 'text-anchor': 'end' }, ratingText(category, hi)),
    s('text', { class: 'label', x: PAD.left - 4, y: H - PAD.bottom, 'text-anchor': 'end' }, ratingText(category, lo)),
    s('polygon', { class: 'band', points: band.join(' ') }),
    s('polyline', { class: 'line', points: history.map((p, i) => at(i, p.rating)).join(' ') }));
  history.forEach((p, i) => {
    const shape = p.outcome === 'win'
      ? s('circle', { cx: x(i), cy: y(p.rating), r: 4.5 })
      : s('rect', { x: x(i) - 4, y: y(p.rating) - 4, width: 8, height: 8, rx: p.outcome === 'tie' ? 2 : 0 });
    shape.setAttribute('class', `point ${p.outcome}`);
    shape.dataset.rating = p.rating;
    shape.dataset.game = p.game;
    shape.append(s('title', {}, `${p.game}: ${p.outcome}, ${ratingText(category, p.rating)} ± ${ratingText(category, p.deviation)}`));
    svg.append(shape);
  });
  return svg;
}
