/** An annotator's colour in the review mode: one lane per annotator (state/review.js lanesOf), gold its own. */
import { lanesOf } from '../state/review.js';
import { h } from '../util.js';

/** The gold spans' lane. */
export const GOLD = 8;

/** A lane's colour as a small square beside a name. */
export const swatch = (lane) => h('span', { class: `rv-swatch rv-c${lane}`, 'aria-hidden': 'true' });

/** An annotator's swatch: null for a name that is not one of the review data's annotators. */
export function swatchOf(data) {
  const lanes = lanesOf(data);
  const laneOf = (annotator) => lanes[data.annotators.indexOf(annotator)];
  return (annotator) => (data.annotators.includes(annotator) ? swatch(laneOf(annotator)) : null);
}
