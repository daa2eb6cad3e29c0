"""The screens' scripts keep to what the phones people bring can run (a phone-browser audit, session 35)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

JS = Path(__file__).resolve().parents[2] / "web" / "static" / "js"

#: syntax and methods newer than the floor the docs name (Chrome 73, Safari 12.2, Firefox 68): a syntax error
#: kills every game's screen, a missing method one screen (Spit after a foul, the new-game form)
NEWER = {
    "optional chaining (Chrome 80, Safari 13.4)": r"\?\.(?!\d)",
    "nullish coalescing (Chrome 80, Safari 13.4)": r"\?\?",
    "logical assignment (Chrome 85, Safari 14)": r"(\|\||&&|\?\?)=",
    "numeric separators (Chrome 75, Safari 13)": r"\d_\d",
    "String.replaceAll (Chrome 85, Safari 13.1)": r"\.replaceAll\(",
    "Array/String .at() (Chrome 92, Safari 15.4)": r"\.at\(",
    "structuredClone (Chrome 98, Safari 15.4)": r"structuredClone",
}


@pytest.mark.parametrize("what", sorted(NEWER))
def test_the_screens_use_nothing_newer_than_the_floor(what: str) -> None:
    pattern = re.compile(NEWER[what], re.MULTILINE)
    found = []
    for path in sorted(JS.rglob("*.js")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            code = line.split("//")[0] if not line.lstrip().startswith("//") else ""
            if pattern.search(code):
                found.append(f"{path.relative_to(JS)}:{number}: {line.strip()}")
    assert not found, f"{what}:\n" + "\n".join(found)


def test_boot_script_is_old_syntax_and_every_screen_says_it_started() -> None:
    boot = (JS / "boot.js").read_text(encoding="utf-8")
    assert not re.search(r"\b(const|let|class|import|export)\b|=>|`", boot)  # runs where the modules cannot
    assert "window.tablecallStarted = true" in (JS / "common.js").read_text(encoding="utf-8")  # started()
    for screen in ("table.js", "new.js", "import.js"):
        assert "\nstarted();" in (JS / screen).read_text(encoding="utf-8")
