/** Numbers as the page shows them: one minus sign everywhere, the typographic one (−), never the hyphen. */
export const MINUS = '−';

/** A whole number: "229", "−229". */
export const whole = (n: number): string => (n < 0 ? `${MINUS}${-n}` : String(n));

/** A whole number with its sign: "+4", "−4", "0". */
export const signed = (n: number): string => (n > 0 ? `+${n}` : whole(n));

/** Rounded to a whole number, with its sign: "+39", "−99". */
export const signedRound = (x: number): string => signed(Math.round(x) || 0);

/** Points with their sign and one decimal: "+4.2", "−0.8", "0.0". */
export const points = (x: number): string => `${x >= 0.05 ? '+' : x <= -0.05 ? MINUS : ''}${Math.abs(x).toFixed(1)}`;
