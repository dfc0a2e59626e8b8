/**
 * The ladder a player chooses from (agents.json's `level` entries, ratings.json's ratings):
 * the shipped index has 4-5 levels from a scripted beginner to the search, each rated in the
 * committed ratings table and each stronger than the last; the index refuses a bad level or
 * bot; ratings.json is read and checked; shares of matches read in a player's words.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseAgentIndex } from '../src/agents';
import { measuredScore, parseRatings, ratingText, shareInWords, versusLine, versusNeighbour } from '../src/ratings';

const BASE = 'https://example.org/some/path/agents.json';
const shipped = JSON.parse(readFileSync(new URL('../public/agents.json', import.meta.url), 'utf8'));
const ratingsJson = JSON.parse(readFileSync(new URL('../public/ratings.json', import.meta.url), 'utf8'));
const index = (agents: unknown[]) => ({ format: 'lost-cities-agents', version: 1, agents });

describe('the shipped ladder', () => {
  const levels = parseAgentIndex(shipped, BASE).entries.filter((e) => e.level);
  const ratings = parseRatings(ratingsJson);

  it('climbs 4 or 5 levels from a scripted bot to the search, every level rated and stronger than the last', () => {
    expect(levels.length).toBeGreaterThanOrEqual(4);
    expect(levels.length).toBeLessThanOrEqual(5);
    expect(levels[0].bot).toBeDefined();
    expect(levels[levels.length - 1].search).toBeDefined();
    const rated = levels.map((level) => ratings.players.get(level.level!.ratedAs));
    expect(rated.every(Boolean), `levels rated as ${levels.map((l) => l.level!.ratedAs)}`).toBe(true);
    const values = rated.map((r) => r!.rating);
    expect([...values].sort((a, b) => a - b)).toEqual(values);
    for (let i = 1; i < levels.length; i++) {
      const above = measuredScore(ratings, levels[i].level!.ratedAs, levels[i - 1].level!.ratedAs);
      expect(above?.score, `${levels[i].id} against ${levels[i - 1].id}`).toBeGreaterThan(0.5); // each level beats the one below head to head
    }
  });

  it('tells every level apart in a player\'s words: each against its neighbour, no two lines alike', () => {
    const named = levels.map((l) => l.level!);
    const lines = named.map((_, i) => versusNeighbour(ratings, named, i));
    expect(lines.every((line) => line.length > 0), JSON.stringify(lines)).toBe(true);
    expect(new Set(lines).size).toBe(lines.length);
    // the top two are close (their ratings' intervals overlap): the line says so rather than "3 of 4" for both
    expect(lines[lines.length - 1]).toMatch(/^Slightly ahead of the Expert: wins 5\d% of their matches\.$/);
    expect(named.map((l) => ratingText(ratings, l.ratedAs)).join(' ')).not.toMatch(/-/); // the typographic minus only
  });

  it('rates the search as the page runs it, and the club-level bot as the anchor', () => {
    const search = levels[levels.length - 1];
    const net = shipped.agents.find((a: { id: string }) => a.id === search.id);
    expect(search.level!.ratedAs).toBe(`search/belief:web/public/${net.model}`);
    const club = levels.find((l) => l.bot === 'heuristic_expert');
    expect(club?.level!.ratedAs).toBe('heuristic_expert');
    expect(ratings.anchor).toBe('heuristic_expert');
    expect(ratings.players.get('heuristic_expert')!.rating).toBe(1500);
  });
});

describe('the index: levels and bots', () => {
  const entry = { id: 'x', model: 'x.onnx', manifest: 'x.json' };
  it('reads a level and a bot', () => {
    const parsed = parseAgentIndex(index([{ ...entry, bot: 'random', level: { name: 'Sightseer', about: 'Random moves.', rated_as: 'random' } }]), BASE);
    expect(parsed.entries[0].bot).toBe('random');
    expect(parsed.entries[0].level).toEqual({ name: 'Sightseer', about: 'Random moves.', ratedAs: 'random' });
  });
  it.each([
    [{ ...entry, bot: 'staller' }, /"bot" "staller" is not a bot this page plays/],
    [{ ...entry, bot: 'random', search: {} }, /not both/],
    [{ ...entry, level: { name: 'A', about: '' , rated_as: 'random' } }, /"level.about" must be a non-empty string/],
    [{ ...entry, level: { name: 'A', about: 'b' } }, /"level.rated_as"/],
  ])('refuses %j', (bad, message) => {
    expect(() => parseAgentIndex(index([bad]), BASE)).toThrow(message);
  });
});

describe('ratings.json', () => {
  it('is read with every player and pair, and refused when it is not a ratings table', () => {
    const ratings = parseRatings(ratingsJson);
    expect(ratings.players.size).toBe(ratingsJson.players.length);
    expect(ratings.provenance.command).toMatch(/^python -m lost_cities\.(tournament|ship) /); // the ship re-rates the ladder
    expect(() => parseRatings({ ...ratingsJson, format: 'x' })).toThrow(/not a ratings table/);
    expect(() => parseRatings({ ...ratingsJson, players: [{ player: 'a' }] })).toThrow(/lacks/);
  });
  it('gives a pair from either side', () => {
    const ratings = parseRatings({ ...ratingsJson, pairs: [{ a: 'p', b: 'q', games: 100, a_win_rate: 0.75 }] });
    expect(measuredScore(ratings, 'p', 'q')).toEqual({ score: 0.75, games: 100 });
    expect(measuredScore(ratings, 'q', 'p')).toEqual({ score: 0.25, games: 100 });
    expect(measuredScore(ratings, 'p', 'z')).toBeNull();
  });
});

describe('shares in words', () => {
  it.each([
    [0.759, '3 of 4'],
    [0.5, '1 of 2'],
    [0.596, '3 of 5'],
    [0.7, '7 of 10'],
    [0.085, '1 of 10'],
    [0.02, '1 in 50'],
    [0.999, 'every'],
    [0.001, 'no'],
  ])('%f reads "%s"', (share, words) => {
    expect(shareInWords(share)).toBe(words);
  });
  it('makes a line of it', () => {
    expect(versusLine(0.759, 'Club player')).toBe('Wins 3 of 4 matches against the Club player.');
    expect(versusLine(0, 'Club player')).toBe('Loses every match to the Club player.');
    expect(versusLine(0.5325, 'Expert')).toBe('Slightly ahead of the Expert: wins 53% of their matches.');
    expect(versusLine(0.45, 'Expert')).toBe('Slightly behind the Expert: wins 45% of their matches.');
    expect(versusLine(0.502, 'Expert')).toBe('As strong as the Expert: wins half their matches.');
  });
});
