"""The closing printout of ``train``: every gate with its intervals, ``heuristic_expert`` first."""

import json

from lost_cities.training.loop import print_gates


def _gate(opponent, win, passed):
    return {
        "opponent": opponent,
        "win_rate": win,
        "win_rate_lower": win - 0.05,
        "win_rate_upper": win + 0.05,
        "margin_mean": 10 * win,
        "margin_lower": 10 * win - 2,
        "margin_upper": 10 * win + 2,
        "deals": 200,
        "passed": passed,
    }


def test_every_gate_printed_with_intervals_expert_first(tmp_path, capsys):
    gates = {
        "random": _gate("random", 0.99, True),
        "heuristic_balanced": _gate("heuristic_balanced", 0.72, True),
        "heuristic_expert": _gate("heuristic_expert", 0.51, False),
    }
    (tmp_path / "gates.json").write_text(json.dumps(gates))
    print_gates(tmp_path)
    lines = capsys.readouterr().out.splitlines()
    gate_lines = [line for line in lines if line.strip().startswith("vs ")]
    assert [line.split(":")[0].split()[-1] for line in gate_lines] == [
        "heuristic_expert",
        "random",
        "heuristic_balanced",
    ]
    assert "win 0.510 [0.460, 0.560] margin +5.1 [+3.1, +7.1] over 200 duplicate deals" in gate_lines[0]
    assert gate_lines[0].endswith("FAILED") and gate_lines[1].endswith("passed")


def test_no_gates_file_prints_nothing(tmp_path, capsys):
    print_gates(tmp_path)
    assert capsys.readouterr().out == ""
