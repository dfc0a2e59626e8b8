/** The review page: the match's result, the summary in plain words, the chart of points lost, the costliest
 * decisions with the reason the better move is better, and one decision at a time on its board. */
import { playerName } from './agents';
import type { App } from './app';
import { COLOURS, deckView, expeditionRow, pileView } from './board';
import { decodeAction } from './cards';
import { adviceInSentence, describeAction } from './describe';
import { button, card, escapeHtml } from './html';
import type { MatchState } from './match';
import { type DecisionReview, clearlyBetter, costliestFirst } from './review';
import { lossChart } from './reviewChart';
import { HOW_TO_READ, capitalized, estimate, reasonEvidence, reasonPhrase, resultWords, verdict } from './reviewWords';
import { deckLeft } from './engine';

/** "Round 2, 30 cards left": where a decision was, in the match. */
const where = (d: DecisionReview, ms: MatchState) => `Round ${d.roundIdx + 1}, ${deckLeft(ms.round)} cards left`;

export function reviewPage(app: App): string {
  const review = app.review;
  if (!review) return '';
  const game = review.game;
  const seat = review.humanSeat;
  const opponent = playerName(app.agents.find((a) => a.id === game.opponent?.id));
  const reviewer = escapeHtml(playerName(app.reviewer));
  const [you, them] = [game.final_carry[seat], game.final_carry[1 - seat]];
  const done = review.decisions.length;
  const total = review.total;
  const running = review.seconds === null && !review.error;
  const progress = review.error
    ? `<p class="error-box" data-testid="review-error">The review stopped: ${escapeHtml(review.error)}</p>`
    : running
      ? `<p data-testid="review-progress" data-done="${done}" data-total="${total ?? ''}">Reviewing your decisions: ${done} of ${total ?? '…'}… <progress max="${total ?? 1}" value="${done}"></progress></p>`
      : `<p data-testid="review-done" data-seconds="${(review.seconds ?? 0).toFixed(1)}" data-total="${total}">All ${total} of your decisions reviewed in ${(review.seconds ?? 0).toFixed(0)} s.</p>`;
  const better = costliestFirst(review.decisions);
  const agreed = review.decisions.filter((d) => d.best === d.played && !d.forced).length;
  const lost = better.reduce((sum, d) => sum + d.gain, 0);
  const lostSe = Math.sqrt(better.reduce((sum, d) => sum + d.se ** 2, 0));
  const summary = done
    ? `<p data-testid="review-summary" data-better="${better.length}" data-lost="${lost.toFixed(1)}">In <b>${better.length}</b> of your ${done} decisions${running ? ' reviewed so far' : ''} the ${reviewer} found a clearly better move, worth about <b class="cost">${lost.toFixed(1)} ± ${lostSe.toFixed(1)}</b> points in all (each decision's estimate, added up; not a recount of the match). In ${agreed} it would have made your move, and in the rest yours was as good as any it found.</p>
       <p class="muted how">${HOW_TO_READ}</p>`
    : '';
  const worst = better.slice(0, 5).map((d) => {
    const round = review.positions[d.ply].round;
    const why = d.reason ? `: ${reasonPhrase(round, d.best, d.played, d.reason)}` : '';
    return `<li data-testid="costly-entry" data-gain="${d.gain.toFixed(1)}" data-se="${d.se.toFixed(1)}"><button class="linklike" data-do="review-ply-${d.ply}" data-testid="costly-${d.ply}">${where(d, review.positions[d.ply])}</button>: you ${escapeHtml(describeAction(round, d.played))}; better: ${escapeHtml(adviceInSentence(round, d.best))}${why}. <b class="cost">${estimate(d.gain, d.se)}</b></li>`;
  });
  const costly = done
    ? worst.length
      ? `<h3>Your costliest decisions</h3><ol class="costly" data-testid="costly">${worst.join('')}</ol>`
      : `<p data-testid="costly-none">No clearly better move found${running ? ' so far' : ''}: every decision was as good as any the ${reviewer} found.</p>`
    : '';
  const d = review.decisions[review.step];
  return `<div class="review" data-testid="review">
    <div class="review-head"><h2>Review of your match against the ${escapeHtml(opponent)}</h2>${button('Back', 'close-review')}</div>
    <p class="review-result" data-testid="review-result">${escapeHtml(capitalized(resultWords(you, them, opponent)))}.</p>
    ${progress}${summary}
    ${done ? lossChart(review.decisions, total, d?.ply ?? null) : ''}
    ${costly}
    ${d ? decisionStep(app, d) : ''}
  </div>`;
}

/** One decision on its board, with Previous / Next. */
function decisionStep(app: App, d: DecisionReview): string {
  const review = app.review!;
  const ms = review.positions[d.ply];
  const round = ms.round;
  const reviewer = escapeHtml(playerName(app.reviewer));
  const shown = clearlyBetter(d);
  const evidence = shown
    ? `<p class="estimate">The better move gains about <b class="cost">${estimate(d.gain, d.se)}</b> points over yours${d.reason ? ` (${escapeHtml(reasonEvidence(d.reason))})` : ''}.</p>`
    : '';
  const position = `<span class="long">Decision <b>${review.step + 1}</b> of ${review.total ?? '…'} · ${where(d, ms).toLowerCase()}</span><span class="short"><b>${review.step + 1}</b>/${review.total ?? '…'} · R${d.roundIdx + 1}</span>`;
  return `<div class="review-step" data-testid="review-step" data-ply="${d.ply}">
      <div class="stepper">${button('◀ Previous', 'review-prev', review.step > 0)}<span class="step-where">${position}</span>${button('Next ▶', 'review-next', review.step < review.decisions.length - 1)}</div>
      <p>You ${escapeHtml(describeAction(round, d.played))}. ${escapeHtml(verdict(d, round, playerName(app.reviewer)))}</p>
      ${evidence}
      ${reviewBoard(ms, review.humanSeat, d.played, shown ? d.best : null, reviewer)}
    </div>`;
}

/** A decision's position as the player saw it: the opponent's hand face down, yours with your card and the better one marked. */
function reviewBoard(ms: MatchState, seat: number, played: number, best: number | null, reviewer: string): string {
  const round = ms.round;
  const playedCard = round.hands[seat][decodeAction(played).handSlot];
  const bestCard = best === null ? null : round.hands[seat][decodeAction(best).handSlot];
  const hand = round.hands[seat].map((id) => {
    const marks = [id === playedCard ? '<span class="mark you">you</span>' : '', id === bestCard ? `<span class="mark best" title="the ${reviewer}'s move">better</span>` : ''].join('');
    return `<div class="card-button">${card(id)}${marks}</div>`;
  });
  return `<div class="table review-table">
    ${expeditionRow(round, 1 - seat, 'agent')}
    <div class="centre">${COLOURS.map((colour) => pileView(round, colour)).join('')}${deckView(round)}</div>
    ${expeditionRow(round, seat, 'me')}
    <div class="hand my-hand review-hand">${hand.join('')}</div>
  </div>`;
}
