"""The window's catalogue in one command: find every marked string (pyside6-lupdate over gemmviz/), fill the
translations from the table (tools/zh_CN.py, through tools/fill_ts.py), and build the .qm Qt loads
(pyside6-lrelease). A window string is added where it is shown (`tr("…")`, `self.tr("…")` or
`QT_TRANSLATE_NOOP("", "…")`) with its translation in the table; then

    python tools/catalogue.py           # rewrite assets/i18n/gemmviz_zh_CN.ts and .qm
    python tools/catalogue.py --check   # say what is missing or stale, write nothing (tests/test_i18n.py)

A message core says (core/messages `define(key, en=…, zh=…)`) needs none of this: its templates are the one file.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))
from fill_ts import main as fill_ts  # noqa: E402  (tools/ is no package)

CATALOGUES = {"zh": (Path("assets/i18n/gemmviz_zh_CN.ts"), Path("tools/zh_CN.py"))}


def _tool(name: str) -> str:
    """PySide6's script beside this Python (a venv not activated has it there, not on PATH)."""
    beside = Path(sys.executable).with_name(name)
    return str(beside) if beside.exists() else name


def marked_files(root: Path = ROOT) -> list[Path]:
    return sorted(p for p in (root / "gemmviz").rglob("*.py") if "__pycache__" not in p.parts)


def sources_of(ts: Path) -> dict[str, str | None]:
    """A .ts file's messages: source -> translation (None while unfinished)."""
    out: dict[str, str | None] = {}
    for m in ET.parse(ts).getroot().iter("message"):
        t = m.find("translation")
        out[m.find("source").text or ""] = None if t is None or t.get("type") == "unfinished" else t.text
    return out


def build(ts: Path, table: Path, qm: Path, files: list[Path]) -> list[str]:
    """lupdate `files` into `ts` (strings no longer marked dropped), fill it from `table`, lrelease it to `qm`.
    Returns the marked strings the table has no translation for (left unfinished)."""
    subprocess.run(
        [_tool("pyside6-lupdate"), *map(str, files), "-no-obsolete", "-ts", str(ts)], check=True, capture_output=True
    )
    fill_ts(str(ts), str(table))
    subprocess.run([_tool("pyside6-lrelease"), str(ts), "-qm", str(qm)], check=True, capture_output=True)
    return [s for s, t in sources_of(ts).items() if t is None]


def problems(
    root: Path = ROOT, files: list[Path] | None = None, table: Path | None = None, obsolete: bool = True
) -> list[str]:
    """What `python tools/catalogue.py` would change or still lack, in words; [] when the shipped catalogue is
    the one it builds. `files` and `table` default to the package's and the shipped table (a test adds its own);
    `obsolete=False` leaves out strings the catalogue holds that nothing marks any more (harmless: the next run
    drops them) and the .qm's difference that makes."""
    found = []
    for ts_rel, table_rel in CATALOGUES.values():
        shipped_ts = root / ts_rel
        with tempfile.TemporaryDirectory() as tmp:
            ts, qm = Path(tmp) / ts_rel.name, Path(tmp) / ts_rel.with_suffix(".qm").name
            shutil.copy(shipped_ts, ts)
            untranslated = build(ts, table or root / table_rel, qm, files or marked_files(root))
            fresh, shipped = sources_of(ts), sources_of(shipped_ts)
            found += [f"{ts_rel}: {s!r} is marked but not in the catalogue" for s in fresh if s not in shipped]
            stale = [s for s in shipped if s not in fresh]
            found += [f"{ts_rel}: {s!r} is in the catalogue but marked nowhere" for s in stale if obsolete]
            found += [f"{table_rel}: no translation of {s!r}" for s in untranslated]
            changed = [s for s in fresh if s in shipped and fresh[s] != shipped[s] and s not in untranslated]
            found += [f"{ts_rel}: {s!r} is translated otherwise in {table_rel}" for s in changed]
            if not found and not stale and qm.read_bytes() != shipped_ts.with_suffix(".qm").read_bytes():
                found.append(f"{ts_rel.with_suffix('.qm')}: older than its .ts")
    return [f"{p} (run python tools/catalogue.py)" for p in found]


def main(argv: list[str]) -> int:
    if "--check" in argv:
        found = problems()
        print("\n".join(found) or "the catalogue is complete and built")
        return 1 if found else 0
    missing = []
    for ts, table in CATALOGUES.values():
        missing += build(ROOT / ts, ROOT / table, (ROOT / ts).with_suffix(".qm"), marked_files())
    for source in missing:
        print(f"no translation in the table: {source!r}", file=sys.stderr)
    return 1 if missing else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
