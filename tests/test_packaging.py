"""The wheel is the product: it holds every module and every config, and a plain
(non-editable) install finds its configs as ``pkg://lost_cities.conf``.

The wheel is built from a copy of exactly what pyproject.toml ships (pyproject.toml,
README.md, lost_cities/, conf/), so the checkout gets no build/ or egg-info dirs.
"""

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHIPPED = ("pyproject.toml", "README.md", "lost_cities", "conf")


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    source = tmp_path_factory.mktemp("source")
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for name in SHIPPED:
        if (REPO / name).is_dir():
            shutil.copytree(REPO / name, source / name, ignore=ignore)
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


def test_the_wheel_holds_every_config_as_lost_cities_conf(wheel):
    names = _names(wheel)
    configs = sorted(p.relative_to(REPO / "conf").as_posix() for p in (REPO / "conf").rglob("*.yaml"))
    assert "config.yaml" in configs and "cli/evaluate.yaml" in configs and "experiment/tiny.yaml" in configs
    missing = [c for c in configs if f"lost_cities/conf/{c}" not in names]
    assert not missing, f"configs missing from the wheel: {missing}"
    assert {"lost_cities/conf/__init__.py", "lost_cities/conf/cli/__init__.py"} <= names


def test_the_wheel_holds_every_module(wheel):
    names = _names(wheel)
    modules = sorted(
        p.relative_to(REPO).as_posix()
        for p in (REPO / "lost_cities").rglob("*.py")
        if "__pycache__" not in p.parts
    )
    missing = [m for m in modules if m not in names]
    assert not missing, f"modules missing from the wheel (add the package to pyproject.toml): {missing}"


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
    ):
        assert f"lost-cities-{verb} = lost_cities.cli." in text


def test_the_unpacked_wheel_composes_every_hydra_config_outside_the_checkout(wheel, tmp_path):
    """The wheel's own lost_cities (first on the path, ahead of the editable checkout)
    finds its configs by package, from a directory that is not the checkout."""
    site = tmp_path / "site"
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(site)
    env = {**os.environ, "PYTHONPATH": str(site)}
    where = subprocess.run(
        [sys.executable, "-c", "import lost_cities; print(lost_cities.__file__)"],
        check=True,
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
    ).stdout
    assert Path(where.strip()).is_relative_to(site)
    for module, overrides in (
        ("lost_cities.train", ["experiment=tiny", "logger=none"]),
        ("lost_cities.evaluate", ["agent=random"]),
        ("lost_cities.tournament", ["a=random", "b=discard_only"]),
        ("lost_cities.carry_probe", ["agent=random"]),
        ("lost_cities.export", ["checkpoint=x", "out=x.onnx"]),
    ):
        shown = subprocess.run(
            [sys.executable, "-m", module, *overrides, "--cfg", "job"],
            check=True,
            capture_output=True,
            text=True,
            cwd=tmp_path,
            env=env,
        ).stdout
        assert shown.strip(), module
    assert not (tmp_path / "outputs").exists()  # --cfg job composes only
