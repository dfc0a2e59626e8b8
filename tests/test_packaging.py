"""The wheel is the product: it holds every module, every config and every asset a preset
names, and a plain (non-editable) install finds them by package, from any directory.

The wheel is built from a copy of exactly what pyproject.toml ships (pyproject.toml,
README.md, lost_cities/, conf/, web/public/), so the checkout gets no build/ or egg-info dirs.
"""

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

# Its module fixtures are built once a run: under xdist (--dist loadgroup) its tests share a worker.
pytestmark = pytest.mark.xdist_group("packaging")

REPO = Path(__file__).resolve().parents[1]
SHIPPED = ("pyproject.toml", "README.md", "lost_cities", "conf", "web/public")


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    source = tmp_path_factory.mktemp("source")
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for name in SHIPPED:
        if (REPO / name).is_dir():
            shutil.copytree(REPO / name, source / name, ignore=ignore)  # makes web/ for web/public
        else:
            shutil.copy2(REPO / name, source / name)
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", str(out), str(source)],
        check=True,
        cwd=out,
    )
    (path,) = out.glob("lost_cities_rl-*.whl")
    return path


def _names(wheel):
    with zipfile.ZipFile(wheel) as archive:
        return set(archive.namelist())


@pytest.mark.slow
def test_the_wheel_holds_every_config_as_lost_cities_conf(wheel):
    names = _names(wheel)
    configs = sorted(p.relative_to(REPO / "conf").as_posix() for p in (REPO / "conf").rglob("*.yaml"))
    assert "config.yaml" in configs and "cli/evaluate.yaml" in configs and "experiment/tiny.yaml" in configs
    missing = [c for c in configs if f"lost_cities/conf/{c}" not in names]
    assert not missing, f"configs missing from the wheel: {missing}"
    assert {"lost_cities/conf/__init__.py", "lost_cities/conf/cli/__init__.py"} <= names


@pytest.mark.slow
def test_the_wheel_holds_every_module(wheel):
    names = _names(wheel)
    modules = sorted(
        p.relative_to(REPO).as_posix()
        for p in (REPO / "lost_cities").rglob("*.py")
        if "__pycache__" not in p.parts
    )
    missing = [m for m in modules if m not in names]
    assert not missing, f"modules missing from the wheel (add the package to pyproject.toml): {missing}"


@pytest.mark.slow
def test_the_wheel_declares_the_console_scripts(wheel):
    with zipfile.ZipFile(wheel) as archive:
        (entry_points,) = [n for n in archive.namelist() if n.endswith(".dist-info/entry_points.txt")]
        text = archive.read(entry_points).decode()
    for verb in (
        "train",
        "pretrain",
        "recipe",
        "evaluate",
        "tournament",
        "carry-probe",
        "export",
        "replay",
        "report",
        "pool-results",
        "bench",
        "search-bench",
        "belief",
        "improve",
        "exploit",
    ):
        assert f"lost-cities-{verb} = lost_cities.cli." in text


@pytest.mark.slow
def test_the_wheel_ships_the_assets_the_presets_name(wheel):
    names = _names(wheel)
    assert "lost_cities/search/beliefs/bc-ppo-xi6-bal2700.msgpack" in names
    shipped = sorted(p.name for p in (REPO / "web" / "public").glob("*.onnx"))
    assert "bc-ppo-xi6-bal2700.onnx" in shipped
    missing = [
        f"lost_cities/shipped/{name}" for name in shipped if f"lost_cities/shipped/{name}" not in names
    ]
    assert not missing, f"models missing from the wheel: {missing}"


@pytest.fixture(scope="module")
def installed(wheel, tmp_path_factory):
    """``(python, away)``: the wheel installed in a fresh venv (its dependencies from this
    interpreter's site packages, the package itself only from the wheel) and a directory
    that is not the checkout, where the tests below run it."""
    venv = tmp_path_factory.mktemp("venv")
    subprocess.run(
        [sys.executable, "-m", "venv", "--without-pip", "--system-site-packages", str(venv)], check=True
    )
    python = venv / "bin" / "python"  # pip itself from the site packages it sees
    subprocess.run(
        [python, "-m", "pip", "install", "--quiet", "--no-deps", "--no-index", str(wheel)], check=True
    )
    return python, tmp_path_factory.mktemp("elsewhere")


def _run_installed(installed, script, *args):
    """stdout of ``script`` run by the venv's python away from the checkout; it must find
    lost_cities in the venv."""
    python, away = installed
    ran = subprocess.run([python, "-c", script, *args], capture_output=True, text=True, cwd=away)
    assert ran.returncode == 0, ran.stderr[-3000:]
    where = ran.stdout.split("lost_cities at", 1)[1].split()[0]
    assert Path(where).is_relative_to(python.parents[1]), where
    assert not (away / "outputs").exists()
    return ran.stdout


# Every preset resolved in the installed package, on a shipped net named by its file name
# alone, so that every asset a preset names (the belief, the proposer) is found there; one
# decision of the preset `belief` (the page's search), or with --full one decision of each.
EVERY_PRESET = """
import sys
import jax
import lost_cities
from lost_cities import agents, envs
from lost_cities.search.config import conf_dir
print("lost_cities at", lost_cities.__file__)
env = envs.make("match3")
state = env.init(jax.random.PRNGKey(0))
presets = sorted(p.stem for p in conf_dir().glob("*.yaml"))
for preset in presets:
    agent = agents.load(f"search/{preset}:bc-ppo-xi6-bal2700.onnx")  # reads every file it names
    if sys.argv[1] == "all" or preset == "belief":
        action = agent.act(state, int(env.to_move(state)))
        assert bool(env.legal_mask(state)[action]), preset
print("presets", " ".join(presets))
"""


@pytest.mark.slow
def test_a_non_editable_install_runs_every_preset_from_outside_the_checkout(installed, full):
    """Nothing a preset names may be read from the checkout's files."""
    shown = _run_installed(installed, EVERY_PRESET, "all" if full else "belief")
    presets = shown.split("presets", 1)[1].split()
    assert {"default", "fast", "belief", "proposed", "proposed_endgame"} <= set(presets)


# Each entry point as ``python -m <module> <overrides> --cfg job`` runs it (runpy, Hydra's
# global state cleared between them), in one process: the imports are paid once.
COMPOSE_EACH = """
import contextlib, io, runpy, sys
from hydra.core.global_hydra import GlobalHydra
import lost_cities
print("lost_cities at", lost_cities.__file__)
for line in sys.argv[1:]:
    module, *overrides = line.split()
    GlobalHydra.instance().clear()
    sys.argv = [module, *overrides, "--cfg", "job"]
    shown = io.StringIO()
    with contextlib.redirect_stdout(shown):
        try:
            runpy.run_module(module, run_name="__main__", alter_sys=True)
        except SystemExit as exit:
            assert exit.code in (None, 0), (module, exit.code)
    assert shown.getvalue().strip(), module
    print("composed", module)
"""


@pytest.mark.slow
def test_the_installed_wheel_composes_every_hydra_config_outside_the_checkout(installed):
    """The installed package finds its configs by package, from a directory that is not
    the checkout (``--cfg job`` composes only: no outputs/ dir)."""
    commands = [
        "lost_cities.train experiment=tiny logger=none",
        "lost_cities.exploit agent=random",
        "lost_cities.evaluate agent=random",
        "lost_cities.tournament a=random b=discard_only",
        "lost_cities.carry_probe agent=random",
        "lost_cities.export checkpoint=x out=x.onnx",
        "lost_cities.belief belief=x.msgpack",
        "lost_cities.search_bench search=belief",  # the search group, found by package
    ]
    shown = _run_installed(installed, COMPOSE_EACH, *commands)
    assert [line.split()[1] for line in shown.splitlines() if line.startswith("composed")] == [
        command.split()[0] for command in commands
    ]


def test_pyproject_lists_every_package_the_wheel_must_hold():
    """setuptools ships only the listed packages: every dir of lost_cities/ that holds modules
    is a package (has an __init__.py) and is listed, as are conf/ and conf/cli/ (as
    lost_cities.conf) and web/public/ (as lost_cities.shipped), mapped to those dirs."""
    import tomllib

    setuptools = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]
    module_dirs = {p.parent for p in (REPO / "lost_cities").rglob("*.py") if "__pycache__" not in p.parts}
    assert all((d / "__init__.py").is_file() for d in module_dirs), sorted(map(str, module_dirs))
    packages = {".".join(d.relative_to(REPO).parts) for d in module_dirs}
    assert {"lost_cities", "lost_cities.search", "lost_cities.networks.critic"} <= packages
    shipped_as = {"lost_cities.conf", "lost_cities.conf.cli", "lost_cities.shipped"}
    assert sorted(setuptools["packages"]) == sorted(packages | shipped_as)
    assert setuptools["package-dir"] == {"lost_cities.conf": "conf", "lost_cities.shipped": "web/public"}
    assert (REPO / "conf" / "__init__.py").is_file() and (REPO / "conf" / "cli" / "__init__.py").is_file()
