"""The page's constants that Python defines are generated from it (mercury_static/tools/twins.py): every cog
block of site_template/app is what its generator writes today, and what the generator writes is the value
node reads back."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest

from conftest import REPO


def test_every_generated_block_is_its_python_definition():
    """`cog --check` over every page module with a cog block: a Python constant changed without `make
    generate` fails here."""
    from mercury_static.tools.twins import generated_files

    files = [str(p.relative_to(REPO)) for p in generated_files()]
    assert "site_template/app/data/formats.js" in files and "site_template/app/keys/keymap.js" in files
    done = subprocess.run([sys.executable, "-m", "cogapp", "--check", *files], cwd=REPO, capture_output=True,
                          text=True, timeout=120, env={**os.environ, "PYTHONPATH": str(REPO)})
    assert done.returncode == 0, ("a generated JS constant is not its Python definition; run make generate\n"
                                  + done.stdout + done.stderr)


VALUES = {
    "nested": {"a": [1, 2.5, -0.0, 1e-7, 1e21, 1_000_000, 3.0], "b-c": None, "d": [True, False], "e": {}},
    "text": "quote ' back \\ nl \n tab \t unit \x1f del \x7f é ☃ 𝔸 ls \u2028 ps \u2029",
    "wide": {f"key_{i}": [f"value {i}"] * 3 for i in range(12)},
    "tuple": ("x", ("y",)),
}


def test_the_js_literals_read_back_as_the_python_values(tmp_path):
    """Each literal `const` writes, read by node, is the same JSON as the Python value; Object.freeze holds
    every level; a wide value is one entry a line, no line past ESLint's width."""
    from mercury_static.tools.twins import WIDTH, Regex, const

    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    lines = [const(f"V_{k}", v, freeze=k == "nested") for k, v in VALUES.items()]
    lines.append(const("MARK", Regex(r"\[[0-9]+/[0-9]+\]", "g")))
    module = tmp_path / "values.mjs"
    module.write_text("\n".join(lines) + "\n", encoding="utf-8")
    script = tmp_path / "read.mjs"
    script.write_text(f"import * as m from {json.dumps(module.as_uri())};\n"
                      "const v = Object.fromEntries(Object.entries(m).filter(([k]) => k.startsWith('V_')));\n"
                      "console.log(JSON.stringify({v, frozen: [Object.isFrozen(m.V_nested), "
                      "Object.isFrozen(m.V_nested.a), Object.isFrozen(m.V_nested.e)], "
                      "mark: 'see [3/4] and [5]'.replace(m.MARK, '#'), flags: m.MARK.flags}));\n", encoding="utf-8")
    done = subprocess.run([node, str(script)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout)
    assert got["v"] == {f"V_{k}": json.loads(json.dumps(v)) for k, v in VALUES.items()}
    assert got["frozen"] == [True, True, True]
    assert got["mark"] == "see # and [5]" and got["flags"] == "g"
    text = module.read_text(encoding="utf-8")
    assert "1_000_000" in text and "\n  key_0: ['value 0', 'value 0', 'value 0'],\n" in text
    assert max(map(len, text.splitlines())) <= WIDTH


@pytest.mark.parametrize("value", [float("nan"), float("inf"), 2**53, {1: "x"}, object()])
def test_a_value_without_a_js_literal_is_refused(value):
    from mercury_static.tools.twins import literal

    with pytest.raises((TypeError, ValueError)):
        literal(value)
