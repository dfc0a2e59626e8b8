"""Every command's inputs, given wrong as a new user would: a cut-off or foreign ``.onnx``, a
manifest of another env or observation version, a corrupt belief file, results parts with a
NaN or of another claim, malformed game logs, an unknown deal bank, zero, negative and huge
counts. Each ends with a one-line error naming the input (no traceback), a non-zero exit
status and nothing written: no run dir, no results file.

The commands run in this process (their ``main``, as the console scripts call it), in a
fresh working dir, so a dir or file they leave behind is seen.
"""

import contextlib
import io
import json
import logging
import math
import shutil
import subprocess
import sys

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

from lost_cities.cli import (
    belief,
    bench,
    carry_probe,
    evaluate,
    export,
    pool_results,
    replay,
    report,
    search_bench,
    tournament,
    train,
)
from lost_cities.evaluation import summarise
from lost_cities.game.cards import MAX_STEPS
from lost_cities.models.base import shipped_model

MODEL = "bc-ppo-xi6-bal.onnx"  # a shipped match3 model (ActionNet, observation v2) and its manifest


@pytest.fixture
def here(tmp_path, monkeypatch):
    """A fresh working dir: whatever a command leaves behind shows in it."""
    monkeypatch.chdir(tmp_path)
    return tmp_path


def left_behind(here, *expected):
    return sorted(p.name for p in here.iterdir() if p.name not in expected)


def _handlers():
    loggers = [logging.getLogger(), *(logging.getLogger(n) for n in logging.root.manager.loggerDict)]
    return {logger: (logger.handlers[:], logger.level) for logger in loggers}


@contextlib.contextmanager
def _logging_undone():
    """Hydra configures logging anew (``logging.config.dictConfig``), which closes every live
    handler; absl's closes its stream, pytest's capture file of the moment it was made. Each
    handler gets a throwaway stream meanwhile, and every logger its handlers back after."""
    before = _handlers()
    live = [ref() for ref in logging._handlerList if ref() is not None]
    streams = {
        h: h.stream
        for h in live
        if type(h).__dict__.get("stream") is None and isinstance(getattr(h, "stream", None), io.IOBase)
    }
    for handler in streams:
        handler.stream = io.StringIO()
    try:
        yield
    finally:
        for handler, stream in streams.items():
            handler.stream = stream
        for logger in _handlers():
            logger.handlers[:], level = before.get(logger, ([], logging.NOTSET))
            logger.setLevel(level)


def run_hydra(main, monkeypatch, *overrides):
    """``main`` (a Hydra app) on ``overrides``: ``(exit status, stderr)``."""
    monkeypatch.setattr(sys, "argv", ["prog", *overrides])
    out, err = io.StringIO(), io.StringIO()
    try:
        with _logging_undone(), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            main()
        code = 0
    except SystemExit as stop:
        code = stop.code
    return code, err.getvalue()


def assert_refused(code, err, *named):
    assert code == 2, err[-3000:]
    last = err.strip().splitlines()[-1]
    assert last.startswith("error: ") and "Traceback" not in err, err[-3000:]
    for text in named:
        assert text in err, err


# --- models: .onnx files and their manifests ------------------------------------------


def copy_model(here, name="model"):
    """A copy of the shipped model and its manifest: ``(onnx path, manifest path)``."""
    source = shipped_model(MODEL)
    model, manifest = here / f"{name}.onnx", here / f"{name}.json"
    shutil.copy(source, model)
    shutil.copy(source.with_suffix(".json"), manifest)
    return model, manifest


def foreign_model(path):
    """A valid ONNX model that is not one of ours (one Identity node)."""
    graph = helper.make_graph(
        [helper.make_node("Identity", ["obs"], ["probs"])],
        "foreign",
        [helper.make_tensor_value_info("obs", TensorProto.FLOAT, [1, 512])],
        [helper.make_tensor_value_info("probs", TensorProto.FLOAT, [1, 512])],
    )
    onnx.save(helper.make_model(graph), str(path))


def truncate(path, fraction=3):
    path.write_bytes(path.read_bytes()[: path.stat().st_size // fraction])


def edit_manifest(manifest, **changes):
    meta = json.loads(manifest.read_text())
    manifest.write_text(json.dumps({**meta, **changes}))


def broken_model(here, how):
    """``how``: a model spoilt one way, and the words its error must hold."""
    model, manifest = copy_model(here)
    if how == "truncated":
        truncate(model)
        return model, [f"{model}: not a readable ONNX model", "cut off or corrupt"]
    if how == "foreign":
        foreign_model(model)
        return model, [f"{model}: this network has", "the model has no such weight"]
    if how == "foreign, no manifest":
        foreign_model(model)
        manifest.unlink()
        return model, [f"{model}: no manifest {manifest}"]
    if how == "an unknown env":
        edit_manifest(manifest, env="single_round_v0")
        return model, [f"{model}: the agent was trained on env 'single_round_v0'"]
    if how == "another env":  # its observation is v1: the manifest's v2 is not single_round's
        edit_manifest(manifest, env="single_round")
        return model, [f"{model}: the agent takes observation v2", "env single_round gives v1"]
    if how == "another observation version":
        edit_manifest(manifest, obs_version="v9")
        return model, [f"{model}: the agent takes observation v9"]
    if how == "manifest not JSON":
        truncate(manifest)
        return model, [f"{model}: its manifest {manifest} is not JSON"]
    if how == "manifest of something else":
        manifest.write_text(json.dumps({"format": "lost-cities-game"}))
        return model, [f"{model}: its manifest {manifest} lacks ['env', 'obs_version', 'obs_dim', 'network']"]
    raise AssertionError(how)


MODEL_FAULTS = [
    "truncated",
    "foreign",
    "foreign, no manifest",
    "an unknown env",
    "another env",
    "another observation version",
    "manifest not JSON",
    "manifest of something else",
]


@pytest.mark.parametrize("how", MODEL_FAULTS)
@pytest.mark.slow
def test_evaluate_refuses_a_bad_model(here, monkeypatch, how):
    model, named = broken_model(here, how)
    code, err = run_hydra(evaluate.main, monkeypatch, f"agent={model}", "deals=2", "progress=false")
    assert_refused(code, err, *named)
    assert left_behind(here, model.name, model.with_suffix(".json").name) == []


@pytest.mark.parametrize("how", ["truncated", "foreign"])
@pytest.mark.slow
def test_a_bad_model_is_refused_in_every_role_and_runtime(here, monkeypatch, how):
    """In a tournament, in the carry probe, in onnxruntime, and as the opponent (a process
    of its own: in this one the training config's ``opponent`` group is registered)."""
    from lost_cities import agents

    model, named = broken_model(here, how)
    for main, overrides in (
        (tournament.main, [f"a={model}", "b=random"]),
        (carry_probe.main, [f"agent={model}"]),
    ):
        code, err = run_hydra(main, monkeypatch, *overrides, "deals=2", "progress=false")
        assert_refused(code, err, *named)
    with pytest.raises(
        ValueError, match="not a readable ONNX model" if how == "truncated" else "no such weight"
    ):
        agents.load(model, runtime="onnxruntime" if how == "truncated" else "jax")
    if how == "truncated":
        command = [
            sys.executable,
            "-m",
            "lost_cities.evaluate",
            "agent=random",
            f"opponent={model}",
            "deals=2",
        ]
        done = subprocess.run(command, capture_output=True, text=True, cwd=here)
        assert_refused(done.returncode, done.stderr, *named)
    assert left_behind(here, model.name, model.with_suffix(".json").name) == []


# --- evaluate's settings: the bank, counts, search knobs, a belief ---------------------


@pytest.mark.parametrize(
    "overrides, named",
    [
        (["bank=v9"], ["bank='v9': no such deal bank version", "['v1']"]),
        (["deals=0"], ["deals=0 must be a whole number > 0"]),
        (["deals=-5"], ["deals=-5 must be a whole number > 0"]),
        (["deals=1000000000"], ["deals=1000000000 reaches past deal 1,000,000"]),
        (["first_deal=-1"], ["first_deal=-1 must be a whole number >= 0"]),
        (["first_deal=999999", "deals=2"], ["first_deal=999999 + deals=2 reaches past"]),
        (["batch_size=0"], ["batch_size=0 must be a whole number > 0"]),
        (["batch_size=-3"], ["batch_size=-3 must be a whole number > 0"]),
        (["agent=search:random", "+search.worlds=-1"], ["search needs worlds >= 1"]),
        (["agent=search:random", "+search.candidates=0"], ["search needs worlds >= 1 and candidates >= 1"]),
        (["agent=search:random", "+search.wrold=8"], ["unknown search knobs ['wrold']"]),
        (["agent=search:random", "+search.belief=BELIEF"], ["search.belief='BELIEF'", "not a belief file"]),
    ],
)
@pytest.mark.slow
def test_evaluate_refuses_bad_settings_before_any_game(here, monkeypatch, overrides, named):
    belief_file = here / "belief.msgpack"
    belief_file.write_bytes(b"\x93\x01\x02 not msgpack of a belief")
    overrides = [o.replace("BELIEF", str(belief_file)) for o in overrides]
    named = [n.replace("BELIEF", str(belief_file)) for n in named]
    code, err = run_hydra(evaluate.main, monkeypatch, "agent=random", *overrides, "progress=false")
    assert_refused(code, err, *named)
    assert left_behind(here, belief_file.name) == []


def test_a_carry_probe_and_a_tournament_refuse_bad_counts(here, monkeypatch):
    for main, overrides, named in (
        (carry_probe.main, ["agent=random", "deals=0"], "deals=0 must be"),
        (carry_probe.main, ["agent=random", "bank=v0"], "bank='v0'"),
        (tournament.main, ["a=random", "b=random", "deals=-1"], "deals=-1 must be"),
    ):
        code, err = run_hydra(main, monkeypatch, *overrides, "progress=false")
        assert_refused(code, err, named)
    assert left_behind(here) == []


# --- the belief command and the search benchmark --------------------------------------


@pytest.mark.parametrize(
    "overrides, named",
    [
        (["action=check", "base=random", "belief=BELIEF"], ["search.belief='BELIEF'", "not a belief file"]),
        (["action=export", "out=OUT", "belief=BELIEF"], ["search.belief='BELIEF'", "not a belief file"]),
        (
            ["action=check", "base=random", "belief=BELIEF", "check_positions=0"],
            ["check_positions=0 must be"],
        ),
        (["belief=NEW", "base=random", "positions=-10"], ["positions=-10 must be a whole number >= 1"]),
        (["belief=NEW", "base=random", "batch=0"], ["batch=0 must be a whole number >= 1"]),
        (["belief=NEW", "base=random", "lr=-1"], ["lr=-1 must be a positive number"]),
    ],
)
def test_the_belief_command_refuses_a_corrupt_belief_and_bad_counts(here, monkeypatch, overrides, named):
    corrupt = here / "belief.msgpack"
    corrupt.write_bytes(b"\x00\x01 cut off")
    paths = {"BELIEF": str(corrupt), "OUT": str(here / "belief.onnx"), "NEW": str(here / "new.msgpack")}
    for key, value in paths.items():
        overrides = [o.replace(key, value) for o in overrides]
        named = [n.replace(key, value) for n in named]
    code, err = run_hydra(belief.main, monkeypatch, *overrides)
    assert_refused(code, err, *named)
    assert left_behind(here, corrupt.name) == []  # no belief.onnx, no new.msgpack


@pytest.mark.parametrize("overrides", [["games=0"], ["games=-4"], ["single=-1"], ["search.worlds=0"]])
def test_the_search_benchmark_refuses_bad_counts(here, monkeypatch, overrides):
    code, err = run_hydra(search_bench.main, monkeypatch, *overrides)
    assert_refused(code, err, overrides[0].lstrip("+").split("=")[0].split(".")[-1])
    assert left_behind(here) == []


# --- training and export ----------------------------------------------------------------


@pytest.mark.parametrize(
    "overrides, named",
    [
        (["resume=RUN"], ["resume=RUN: no config.yaml there"]),
        (["evaluation.deals=0"], ["deals must be"]),
        (["ppo.num_envs=-8"], ["num_envs"]),
    ],
)
def test_train_refuses_a_bad_start_and_leaves_no_run_dir(here, monkeypatch, overrides, named):
    run = here / "nothing" / "run"
    overrides = [o.replace("RUN", str(run)) for o in overrides]
    named = [n.replace("RUN", str(run)) for n in named]
    code, err = run_hydra(train.main, monkeypatch, "logger=none", "progress=false", *overrides)
    assert_refused(code, err, *named)
    assert left_behind(here) == []


def test_export_refuses_a_missing_checkpoint(here, monkeypatch):
    out = here / "m.onnx"
    code, err = run_hydra(export.main, monkeypatch, f"checkpoint={here / 'norun'}", f"out={out}")
    assert_refused(code, err, f"{here / 'norun'} does not exist")
    assert left_behind(here) == []


# --- pool_results: parts that are not sound or not one claim ---------------------------


def part(first, deals, seed=0, **changes):
    """An evaluation's results of ``deals`` deals from ``first`` (made-up games)."""
    rng = np.random.default_rng(seed)
    rounds = rng.integers(-30, 31, (2 * deals, 3))
    games = {
        "margin_a": rounds.sum(axis=1),
        "round_margin_a": rounds,
        "round_plies": np.full((2 * deals, 3), MAX_STEPS // 2),
        "pile_draws_a": rng.integers(0, 3, (2 * deals, 3)),
        "pile_draws_b": rng.integers(0, 3, (2 * deals, 3)),
    }
    settings = {"agent": "a", "opponent": "b", "bank": "v1", "seed": 0, "first_deal": first}
    return {**summarise(games, "match3"), **settings, **changes}


BAD_PARTS = {
    "a NaN": (part(10, 10, margin_mean=math.nan), ["margin_mean=nan is not a finite number"]),
    "an infinity in a round": (
        part(10, 10, rounds=[{**r, "margin_upper": math.inf} for r in part(10, 10)["rounds"]]),
        ["rounds[0].margin_upper=inf is not a finite number"],
    ),
    "another agent": (part(10, 10, agent="c"), ["the parts differ in agent: 'a' (", "'c' ("]),
    "another opponent": (part(10, 10, opponent="random"), ["differ in opponent"]),
    "another bank": (part(10, 10, bank="v2"), ["differ in bank"]),
    "an overlapping deal range": (part(5, 10), ["deals 0-9 (", "and 5-14 (", "overlap"]),
    "a negative first deal": (part(-10, 10), ["first_deal=-10 is not a deal bank index"]),
    "no first deal": ({k: v for k, v in part(10, 10).items() if k != "first_deal"}, ["no first_deal"]),
    "counts that do not add up": (part(10, 10, wins=99), ["do not add up"]),
    "deal scores of another size": (
        part(10, 10, deal_scores=[1, 1, 1, 1, 1]),
        ["deal_scores counts 5 deals"],
    ),
    "not results": ({"passed": True}, ["not an evaluation's results (no schema_version"]),
}


@pytest.mark.parametrize("fault", list(BAD_PARTS))
def test_pool_results_names_the_bad_part_and_writes_nothing(here, capsys, fault):
    bad, named = BAD_PARTS[fault]
    good, spoilt = here / "good.json", here / "spoilt.json"
    good.write_text(json.dumps(part(0, 10)))
    spoilt.write_text(json.dumps(bad))  # json writes NaN and Infinity as the literals Python reads back
    out = here / "pooled.json"
    with pytest.raises(SystemExit) as stop:
        pool_results.main([str(good), str(spoilt), "--out", str(out)])
    err = capsys.readouterr().err
    assert stop.value.code == 2 and err.strip().splitlines()[-1].startswith("error: "), err
    assert all(text in err for text in named), err
    if fault not in ("another agent", "another opponent", "another bank", "an overlapping deal range"):
        assert str(spoilt) in err  # a fault of one part names that part's file
    assert left_behind(here, good.name, spoilt.name) == []


@pytest.mark.parametrize("content", [b"{not json", b"\xff\xfe binary", b"[1, 2]"])
def test_pool_results_refuses_a_file_that_is_not_results(here, capsys, content):
    path = here / "part.json"
    path.write_bytes(content)
    with pytest.raises(SystemExit) as stop:
        pool_results.main([str(path), "--out", str(here / "pooled.json")])
    err = capsys.readouterr().err
    assert stop.value.code == 2 and f"{path}:" in err, err
    assert left_behind(here, path.name) == []


# --- replay: malformed game logs ---------------------------------------------------------


@pytest.mark.parametrize(
    "lines, named",
    [
        (['{"format": "lost-cities-game", "version": 1', ""], "line 1: not JSON"),
        (["", "[1, 2]"], "line 2 (game 1): a game is a JSON object, not list"),
        (['{"format": "lost-cities-game", "version": 7}'], "line 1 (game 1): log version 7"),
        (['{"format": "lost-cities-game", "version": 1, "env": "match3"}'], "line 1 (game 1)"),
        ([], "no games (the file is empty)"),
    ],
)
def test_replay_names_the_malformed_line(here, lines, named, capsys):
    log = here / "games.jsonl"
    log.write_text("\n".join(lines))
    with pytest.raises(SystemExit) as stop:
        replay.main([str(log)])
    assert stop.value.code not in (0, None)
    assert f"replay failed: {log}" in str(stop.value.code) and named in str(stop.value.code)
    assert capsys.readouterr().out == ""  # nothing printed of a game: all are read before any is shown


@pytest.mark.parametrize("content", [None, b"\xff\xfe\x00 binary"])
def test_replay_names_a_missing_or_binary_log(here, content):
    log = here / "games.jsonl"
    if content is not None:
        log.write_bytes(content)
    with pytest.raises(SystemExit) as stop:
        replay.main([str(log)])
    assert f"replay failed: {log}: " in str(stop.value.code)


# --- the argparse benchmarks and reports -------------------------------------------------


@pytest.mark.parametrize(
    "args", [["--batch", "0"], ["--runs", "-1"], ["--steps", "1000000000"], ["--runs", "x"]]
)
def test_bench_refuses_a_bad_count(args, capsys):
    with pytest.raises(SystemExit) as stop:
        bench.main(args)
    err = capsys.readouterr().err
    assert stop.value.code == 2 and f"argument {args[0]}" in err, err


def test_report_names_a_missing_run_dir(here, capsys):
    with pytest.raises(SystemExit) as stop:
        report.main([str(here / "norun")])
    assert stop.value.code == 2 and str(here / "norun") in capsys.readouterr().err
    assert left_behind(here) == []
