"""``python -m lost_cities.tournament a=... b=... env=match3 deals=10000``, or all-play-all:
``python -m lost_cities.tournament 'players=[random,heuristic_expert,...]' anchor=heuristic_expert``.

With ``a`` and ``b``: the same run as ``lost_cities.evaluate`` (a is the agent, b the opponent),
printed as one line. With ``players``: every pair plays a duplicate evaluation
(:func:`lost_cities.evaluation.matchup.run`; fewer deals for a pair with a ``slow`` player, or a
pair's existing results file from ``reuse``), each pair's results kept under ``pairs/``, and a
Bradley-Terry rating per player is fitted from them (:mod:`lost_cities.evaluation.ratings`) and
written as ``ratings.json`` and ``ratings.md``, in the run dir and in ``out_dir`` when set.
"""

import json
import re
from itertools import combinations
from pathlib import Path

import hydra
from hydra.core.hydra_config import HydraConfig
from omegaconf import OmegaConf

from lost_cities.cli import CLI_CONF
from lost_cities.cli.evaluate import check_out, quiet_libraries, removing_empty_run_dir, write_results
from lost_cities.evaluation.matchup import run
from lost_cities.evaluation.provenance import provenance
from lost_cities.evaluation.ratings import fit, pair_from_results
from lost_cities.evaluation.report import format_summary

RATINGS_FORMAT = "lost-cities-ratings"
RATINGS_VERSION = 1


def slug(player):
    """A file-name-safe form of a player spec (``search/belief:web/public/x.onnx`` -> ``search-belief-x``)."""
    text = re.sub(r"web/public/|\.onnx$", "", str(player)).replace(".onnx", "")
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", text).strip("-")


def check_players(cfg):
    """The all-play-all settings, checked before any game; returns ``(players, slow, reuse)``."""
    players = [str(p) for p in cfg.players]
    if cfg.a is not None or cfg.b is not None:
        raise ValueError("give either players=[...] (all-play-all) or a= and b=, not both")
    if len(players) < 2 or len(set(players)) != len(players):
        raise ValueError(f"players={players} must list at least two distinct players")
    if cfg.anchor not in players:
        raise ValueError(f"anchor={cfg.anchor!r} must be one of players={players}")
    if len({slug(p) for p in players}) != len(players):
        raise ValueError(f"players={players}: two of them would share a results file name")
    slow = [str(p) for p in cfg.slow.players]
    if unknown := [p for p in slow if p not in players]:
        raise ValueError(f"slow.players {unknown} are not in players={players}")
    for key, value in (("deals", cfg.deals), ("slow.deals", cfg.slow.deals)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ValueError(f"{key}={value!r} must be a whole number > 0")
    reuse = {}
    for path in cfg.reuse:
        results = json.loads(Path(path).read_text())
        a, b = str(results.get("agent")), str(results.get("opponent"))
        if a not in players or b not in players:
            raise ValueError(f"reuse: {path} is {a} vs {b}, not a pair of players={players}")
        if results.get("env") != cfg.env or results.get("bank", cfg.bank) != cfg.bank:
            raise ValueError(
                f"reuse: {path} was played on env {results.get('env')}, bank {results.get('bank')}; "
                f"this tournament plays env {cfg.env}, bank {cfg.bank}"
            )
        key = frozenset((a, b))
        if key in reuse:
            raise ValueError(f"reuse: {path} and {reuse[key][0]} are both {a} vs {b}")
        reuse[key] = (str(path), results)
    return players, slow, reuse


def check_out_dir(cfg):
    """An ``out_dir`` holding a ratings table is refused unless ``overwrite=true``."""
    if cfg.out_dir and (Path(cfg.out_dir) / "ratings.json").exists() and not cfg.overwrite:
        raise FileExistsError(
            f"out_dir={cfg.out_dir} holds ratings.json; choose another dir, or pass overwrite=true"
        )
    if cfg.ratings_out and Path(cfg.ratings_out).exists() and not cfg.overwrite:
        raise FileExistsError(f"ratings_out={cfg.ratings_out} exists; pass overwrite=true to replace it")


def play_pair(cfg, a, b, deals):
    """``a`` against ``b`` on ``deals`` deals: the evaluate config with those three changed."""
    pair_cfg = OmegaConf.merge(cfg, {"a": a, "b": b, "deals": deals, "out": None})
    return run(pair_cfg)


def ratings_table(cfg, players, pair_results):
    """The ratings JSON: the fit per player, and each pair's score, games and margin."""
    pairs = [pair_from_results(results) for results in pair_results.values()]
    fitted = fit(players, pairs, cfg.anchor, cfg.anchor_rating, cfg.prior_games)
    totals = {p: {"games": 0.0, "score": 0.0} for p in players}
    for pair in pairs:
        totals[pair.a]["games"] += pair.games
        totals[pair.a]["score"] += pair.score
        totals[pair.b]["games"] += pair.games
        totals[pair.b]["score"] += pair.games - pair.score
    rows = sorted(
        (
            {
                "player": p,
                **{k: round(v, 1) for k, v in fitted[p].items()},
                "games": int(totals[p]["games"]),
                "score_rate": totals[p]["score"] / totals[p]["games"],
            }
            for p in players
        ),
        key=lambda row: -row["rating"],
    )
    return {
        "format": RATINGS_FORMAT,
        "version": RATINGS_VERSION,
        "method": (
            "Bradley-Terry maximum likelihood on every pair's games (a draw counts half), "
            f"Elo scale (400 points per factor 10 in odds), {cfg.anchor} held at {cfg.anchor_rating}; "
            f"{cfg.prior_games} virtual game(s) per pair split evenly; intervals: normal 95% from the "
            "fit's standard errors (inverse observed information), relative to the anchor"
        ),
        "env": cfg.env,
        "bank": cfg.bank,
        "anchor": cfg.anchor,
        "anchor_rating": cfg.anchor_rating,
        "prior_games": cfg.prior_games,
        "players": rows,
        "pairs": [
            {
                "a": str(r["agent"]),
                "b": str(r["opponent"]),
                "deals": r["deals"],
                "games": r["games"],
                "a_wins": r["wins"],
                "draws": r["draws"],
                "a_losses": r["losses"],
                "a_win_rate": r["win_rate"],
                "a_win_rate_lower": r["win_rate_lower"],
                "a_win_rate_upper": r["win_rate_upper"],
                "a_margin_mean": r["margin_mean"],
                "file": f"pairs/{name}.json",
                **({"reused_from": r["reused_from"]} if "reused_from" in r else {}),
            }
            for name, r in pair_results.items()
        ],
    }


def ratings_markdown(table):
    """The ratings table as markdown, with the pairwise win rates under it."""
    prov = table["provenance"]
    lines = [
        f"# Ratings ({table['env']}, deal bank {table['bank']})",
        "",
        f"{table['method']}.",
        "",
        "| player | rating | 95% interval | s.e. | games | score |",
        "| --- | ---: | --- | ---: | ---: | ---: |",
    ]
    for row in table["players"]:
        lines.append(
            f"| {row['player']} | {row['rating']:.0f} | [{row['lower']:.0f}, {row['upper']:.0f}] | "
            f"{row['se']:.0f} | {row['games']:,} | {row['score_rate']:.3f} |"
        )
    lines += [
        "",
        "| a | b | deals | a's win rate [95%] | a's margin | source |",
        "| --- | --- | ---: | --- | ---: | --- |",
    ]
    for pair in table["pairs"]:
        source = f"reused: {pair['reused_from']}" if "reused_from" in pair else pair["file"]
        lines.append(
            f"| {pair['a']} | {pair['b']} | {pair['deals']:,} | {pair['a_win_rate']:.3f} "
            f"[{pair['a_win_rate_lower']:.3f}, {pair['a_win_rate_upper']:.3f}] | "
            f"{pair['a_margin_mean']:+.1f} | {source} |"
        )
    lines += ["", f"Command: `{prov['command']}`; commit {prov['commit']}; date {prov['date']}.", ""]
    return "\n".join(lines)


def all_play_all(cfg):
    """Every pair of ``cfg.players`` (see the module doc); returns the ratings table."""
    players, slow, reuse = check_players(cfg)
    check_out_dir(cfg)
    run_dir = Path(HydraConfig.get().runtime.output_dir)
    pair_results = {}
    for a, b in combinations(players, 2):
        name = f"{slug(a)}__{slug(b)}"
        if frozenset((a, b)) in reuse:
            path, results = reuse[frozenset((a, b))]
            results = {**results, "reused_from": path}
            target = run_dir / "pairs" / f"{name}.json"
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(json.dumps(results, indent=2) + "\n")
            print(f"reused {path}: {format_summary(results)}", flush=True)
        else:
            deals = cfg.slow.deals if a in slow or b in slow else cfg.deals
            results = play_pair(cfg, a, b, deals)
            write_results(results, OmegaConf.merge(cfg, {"out": None}), name=f"pairs/{name}.json")
            print(f"{format_summary(results)}, {results['seconds']:.0f} s", flush=True)
        pair_results[name] = results
    table = ratings_table(cfg, players, pair_results)
    table["provenance"] = provenance()
    text = json.dumps(table, indent=2, allow_nan=False) + "\n"
    markdown = ratings_markdown(table)
    (run_dir / "ratings.json").write_text(text)
    (run_dir / "ratings.md").write_text(markdown)
    if cfg.out_dir:
        out = Path(cfg.out_dir)
        (out / "pairs").mkdir(parents=True, exist_ok=True)
        for name in pair_results:
            (out / "pairs" / f"{name}.json").write_text((run_dir / "pairs" / f"{name}.json").read_text())
        (out / "ratings.json").write_text(text)
        (out / "ratings.md").write_text(markdown)
    if cfg.ratings_out:
        Path(cfg.ratings_out).parent.mkdir(parents=True, exist_ok=True)
        Path(cfg.ratings_out).write_text(text)
    print(markdown)
    return table


@hydra.main(version_base=None, config_path=CLI_CONF, config_name="tournament")
@removing_empty_run_dir
def main(cfg):
    quiet_libraries()
    if cfg.players is not None:
        all_play_all(cfg)
        return
    if cfg.a is None or cfg.b is None:
        raise ValueError("give a= and b= (one pair), or players=[...] (all-play-all)")
    check_out(cfg)
    results = run(cfg)
    print(format_summary(results))
    write_results(results, cfg)


if __name__ == "__main__":
    main()
