/**
 * The review's chart: the points lost decision by decision over the match, as chess sites draw
 * their evaluation graph. Plain SVG stretched to the page's width: one column per decision of
 * the player's, left to right; a pink bar where the better move was clearly better (its height
 * the points lost), a short grey tick on the line where the move was as good as any found;
 * rounds divided and named; the decision on screen shaded; a click on a column shows that
 * decision. The words (the scale, the rounds) are HTML, so the stretching leaves them alone.
 */
import { type DecisionReview, clearlyBetter } from './review';

const WIDTH = 600;
const HEIGHT = 100;

/** The scale's top: the largest loss rounded up to 10, 20, 50, 100, … points (10 at least). */
export function chartScale(losses: number[]): number {
  const largest = Math.max(10, ...losses);
  for (let step = 10; ; step *= 10) for (const top of [step, 2 * step, 5 * step]) if (top >= largest) return top;
}

const fixed = (x: number) => x.toFixed(1);

/** The chart of `decisions` (those reviewed so far) out of `total` decisions (null: not known yet), `current` the ply on screen. */
export function lossChart(decisions: DecisionReview[], total: number | null, current: number | null): string {
  const columns = Math.max(total ?? 0, decisions.length, 1);
  const width = WIDTH / columns;
  const losses = decisions.map((d) => (clearlyBetter(d) ? d.gain : 0));
  const top = chartScale(losses);
  const parts = decisions.map((d, i) => {
    const x = i * width;
    const tall = (HEIGHT * losses[i]) / top;
    const mark = losses[i] > 0
      ? `<rect class="loss" x="${fixed(x + width * 0.15)}" y="${fixed(HEIGHT - tall)}" width="${fixed(width * 0.7)}" height="${fixed(tall)}"></rect>`
      : `<rect class="${d.forced ? 'forced' : 'fine'}" x="${fixed(x + width * 0.3)}" y="${HEIGHT - 4}" width="${fixed(width * 0.4)}" height="4"></rect>`;
    const here = d.ply === current ? `<rect class="here" x="${fixed(x)}" y="0" width="${fixed(width)}" height="${HEIGHT}"></rect>` : '';
    const what = losses[i] > 0 ? `${losses[i].toFixed(1)} points lost` : d.forced ? 'only one legal move' : 'as good as any found';
    // the whole column is the click target: a thin bar alone is hard to hit
    const hit = `<rect class="hit" data-do="review-ply-${d.ply}" x="${fixed(x)}" y="0" width="${fixed(width)}" height="${HEIGHT}"><title>Decision ${i + 1}, round ${d.roundIdx + 1}: ${what}</title></rect>`;
    return `<g data-testid="chart-decision" data-ply="${d.ply}" data-loss="${losses[i].toFixed(1)}">${here}${mark}${hit}</g>`;
  });
  const starts = decisions.flatMap((d, i) => (i === 0 || d.roundIdx !== decisions[i - 1].roundIdx ? [{ i, roundIdx: d.roundIdx }] : []));
  const dividers = starts.filter(({ i }) => i > 0).map(({ i }) => `<line class="round" x1="${fixed(i * width)}" y1="0" x2="${fixed(i * width)}" y2="${HEIGHT}"></line>`);
  const names = starts.map(({ i, roundIdx }) => `<span class="round-name" style="left:${fixed((100 * i) / columns)}%">Round ${roundIdx + 1}</span>`);
  const pending = decisions.length < columns ? `<rect class="pending" x="${fixed(decisions.length * width)}" y="0" width="${fixed((columns - decisions.length) * width)}" height="${HEIGHT}"></rect>` : '';
  const lost = losses.filter((x) => x > 0).length;
  const label = `Points lost at each of your decisions: ${lost} clear loss${lost === 1 ? '' : 'es'} in ${decisions.length} decisions reviewed`;
  return `<figure class="loss-chart">
    <figcaption>Points lost, decision by decision <span class="muted">(scale 0 to ${top}; a tick: as good as any move found)</span></figcaption>
    <svg data-testid="loss-chart" viewBox="0 0 ${WIDTH} ${HEIGHT}" preserveAspectRatio="none" role="img" aria-label="${label}">${pending}${dividers.join('')}${parts.join('')}<line class="axis" x1="0" y1="${HEIGHT}" x2="${WIDTH}" y2="${HEIGHT}"></line></svg>
    <div class="round-names">${names.join('')}</div>
  </figure>`;
}
