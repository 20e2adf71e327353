"""requirements/constraints.txt, the Python side's lockfile: it pins every package `make install` brings, at the
version installed here (the one the tests run against), and every install step of the Makefile goes through it;
requirements/label-studio.txt pins Label Studio's own venv the same way."""

from __future__ import annotations

import importlib.metadata
import re

from conftest import REPO
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version
from test_wheel import _closure

MAKEFILE = (REPO / "Makefile").read_text(encoding="utf-8")


def _pins(name: str) -> dict[str, str]:
    pins = {}
    for line in (REPO / "requirements" / name).read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#"):
            req = Requirement(line)
            (spec,) = req.specifier
            assert spec.operator == "==", f"{name}: {line} is not an exact pin"
            pins[canonicalize_name(req.name)] = spec.version
    return pins


def _recipe(target: str) -> list[str]:
    body = MAKEFILE.split(f"\n{target}:", 1)[1].split("\n\n", 1)[0]
    return [line.strip() for line in body.splitlines()[1:]]


def test_every_installed_dependency_of_the_extras_is_pinned_at_its_installed_version():
    extras = re.search(r"^EXTRAS := (\S+)$", MAKEFILE, re.M)
    assert extras, "the Makefile names its extras once, as EXTRAS"
    pins = _pins("constraints.txt")
    installed = _closure([f"mercury-static[{extras[1]}]"])
    installed.pop("mercury-static")
    unpinned = sorted(set(installed) - set(pins))
    assert not unpinned, f"not in requirements/constraints.txt (run `make lock`): {unpinned}"
    drifted = {name: (dist.version, pins[name]) for name, dist in installed.items()
               if Version(dist.version).public != Version(pins[name]).public}
    assert not drifted, f"installed here, pinned: {drifted} (run `make install`, or `make lock` and `make test`)"
    assert Version(importlib.metadata.version("pip")).public == pins["pip"]


def test_every_install_step_goes_through_its_lock():
    steps = [line for line in _recipe("$(VENV)/.installed") if " install " in line]
    assert len(steps) == 3 and all("-c $(LOCK)" in line for line in steps), steps
    assert re.search(r"^LOCK := requirements/constraints.txt$", MAKEFILE, re.M)
    (label_studio,) = [line for line in _recipe(".cache/label-studio-venv/bin/label-studio") if " install " in line]
    assert "-c requirements/label-studio.txt" in label_studio
    assert _pins("label-studio.txt")["label-studio"] == "1.23.2"
