"""The loop's learning curve: the champion's strength after every iteration (``curve.png``),
and with exploiters how much each champion's best response wins from it."""

import matplotlib

matplotlib.use("Agg")  # files only; no display on servers
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.ticker import MaxNLocator  # noqa: E402

FIRST = "champions/0000"


EXPLOIT = "exploit"  # the panel of the rows' exploit/ metrics (the generating champion's exploiter)


def _series(rows, name, metric):
    key = f"exploit/{metric}" if name == EXPLOIT else f"anchors/{name}/{metric}"
    points = [(r["iteration"], r.get(key)) for r in rows]
    if name == "first":  # the first champion against itself: 0, not played
        points = [(i, 0.0 if r["champion"] == FIRST else v) for (i, v), r in zip(points, rows, strict=True)]
    return [p for p in points if p[1] is not None]


def plot_curve(rows, path):
    """Each anchor's win rate and the margin against the first champion, with their
    intervals, by iteration; promotions are marked on the x axis."""
    names = sorted({k.split("/")[1] for r in rows for k in r if k.startswith("anchors/")})
    names += [EXPLOIT] if any("exploit/win_rate" in r for r in rows) else []
    fig, axes = plt.subplots(1, max(len(names), 1), figsize=(4.5 * max(len(names), 1), 3.5), squeeze=False)
    for ax, name in zip(axes[0], names, strict=False):
        metric = "margin" if name == "first" else "win_rate"
        mean = _series(rows, name, "margin_mean" if name == "first" else "win_rate")
        low = dict(_series(rows, name, f"{metric}_lower"))
        high = dict(_series(rows, name, f"{metric}_upper"))
        xs = [x for x, _ in mean]
        ys = [y for _, y in mean]
        errors = [[y - low.get(x, y) for x, y in mean], [high.get(x, y) - y for x, y in mean]]
        ax.errorbar(xs, ys, yerr=errors, marker="o", capsize=3)
        promoted = [r["iteration"] for r in rows if r.get("promoted") and r["iteration"] > 0]
        ax.plot(promoted, [ax.get_ylim()[0]] * len(promoted), "^", color="tab:green", label="promoted")
        titles = {
            "first": "margin vs the first champion",
            EXPLOIT: "its exploiter's win rate vs the champion",
        }
        ax.set_title(titles.get(name, f"win rate vs {name}"))
        ax.set_xlabel("iteration")
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path
