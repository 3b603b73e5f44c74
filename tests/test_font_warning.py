"""Text no font here can draw gets a warning naming its characters and the fix (issue 23), never silent boxes:
with only DejaVu installed (FONTCONFIG_FILE) Korean is named, the bundled font's Chinese is not, the warning
agrees with the pixels drawn, and `gemmviz lesson … --export` prints it; the window shows it on opening a
lesson or a session."""

import json
import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

from PySide6.QtCore import QSettings

from gemmviz.backends.cpu import CpuBackend
from gemmviz.core.lesson.lessons import find_lesson
from gemmviz.core.session.results import Session
from gemmviz.core.session.workspace import default_replay_session
from gemmviz.ui.fonts import missing_font_warning
from gemmviz.ui.lesson import mode as lesson_ui
from gemmviz.ui.window import MainWindow
from tests.fakes import FakeGpuBackend

ROOT = Path(__file__).resolve().parents[1]
KOREAN = "분할 행렬 곱셈"  # "tiled matrix multiplication"
CHILD = r"""
import json, sys
from PySide6.QtGui import QColor, QImage, QPainter
from gemmviz.cli.app import qt_app
from gemmviz.ui.fonts import missing_characters, missing_font_warning, pixel_font

def picture(text):
    image = QImage(40 * len(text) + 10, 50, QImage.Format.Format_RGB32)
    image.fill(QColor("white"))
    p = QPainter(image); p.setFont(pixel_font(30)); p.setPen(QColor("black")); p.drawText(5, 40, text); p.end()
    return image

app = qt_app()  # registers the bundled CJK font, as every drawing command does
box = picture("\ue000")
text = sys.argv[1]
print(json.dumps({
    "korean": missing_font_warning(text, "my.toml"),
    "missing": missing_characters(text + " 分块矩阵乘法，共享内存"),
    "boxes": [c for c in text if not c.isspace() and picture(c) == box],
    "chinese": missing_font_warning("分块矩阵乘法：线程块把 A 和 B 的分块搬进共享内存。"),
}))
"""


def dejavu_only(tmp_path: Path) -> dict:
    conf = tmp_path / "fonts.conf"
    conf.write_text(
        f"<?xml version='1.0'?><fontconfig><dir>/usr/share/fonts/truetype/dejavu</dir>"
        f"<cachedir>{tmp_path / 'cache'}</cachedir></fontconfig>"
    )
    return {**os.environ, "FONTCONFIG_FILE": str(conf), "QT_QPA_PLATFORM": "offscreen"}


def korean_lesson(folder: Path) -> Path:
    """seed001 copied by a teacher, its title in Korean."""
    text = (ROOT / "assets/lessons/seed001.toml").read_text(encoding="utf-8")
    path = folder / "my.toml"
    path.write_text(
        text.replace('title = "Arithmetic intensity and the roofline"', f'title = "{KOREAN}"', 1), encoding="utf-8"
    )
    return path


def test_korean_is_named_with_its_fix_and_chinese_is_not_with_only_dejavu(tmp_path):
    proc = subprocess.run(
        [sys.executable, "-c", CHILD, KOREAN],
        capture_output=True,
        text=True,
        env=dejavu_only(tmp_path),
        timeout=120,
        cwd=ROOT,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    found = json.loads(proc.stdout.strip().splitlines()[-1])
    korean = [c for c in KOREAN if c != " "]
    assert found["missing"] == korean  # the bundled font has the Chinese; nothing has the Korean
    assert sorted(found["boxes"]) == sorted(korean)  # what the check says is what the pixels show
    warning = found["korean"]
    assert warning.startswith("my.toml: ") and all(c in warning for c in korean), warning
    assert "U+BD84" in warning and "sudo apt install fonts-noto-cjk" in warning
    assert found["chinese"] == ""


def test_lesson_export_prints_the_warning(tmp_path):
    lesson = korean_lesson(tmp_path)
    out = tmp_path / "slides"
    proc = subprocess.run(
        [sys.executable, "-m", "gemmviz", "lesson", str(lesson), "--export", str(out), "--size", "640x360"],
        capture_output=True,
        text=True,
        env=dejavu_only(tmp_path),
        timeout=300,
        cwd=ROOT,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    warnings = [line for line in proc.stderr.splitlines() if "no installed font" in line]
    assert len(warnings) == 1 and warnings[0].startswith("gemmviz: warning: ")
    assert "분" in warnings[0] and "fonts-noto-cjk" in warnings[0]
    assert (out / "lesson.pdf").exists()  # the slides are written all the same


def test_the_window_warns_on_a_lesson_and_a_session_it_cannot_draw(qtbot, tmp_path):
    # U+E000 (private use) is in no font anywhere: the same path as Korean on a machine without a Hangul font
    assert "U+E000" in missing_font_warning("\ue000")
    path = korean_lesson(tmp_path)
    path.write_text(path.read_text(encoding="utf-8").replace(KOREAN, "Tiles \ue000"), encoding="utf-8")
    qs = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    w = MainWindow(
        {"cpu": CpuBackend(), "cuda": FakeGpuBackend(available=False)}, settings=qs, load_recorded_without_gpu=False
    )
    qtbot.addWidget(w)
    w.resize(1280, 720)
    w.show()
    assert lesson_ui.start(w, find_lesson(str(path)))
    message = w.statusBar().currentMessage()
    assert "\ue000" in message and "U+E000" in message and "apt install" in message
    lesson_ui.leave(w)
    w.statusBar().clearMessage()
    recorded = Session.load(default_replay_session())
    results = [replace(recorded.results[0], note="measured by \ue000"), *recorded.results[1:3]]
    replace(recorded, results=results).save(tmp_path / "s.json")
    assert w.files.open_session(tmp_path / "s.json")
    assert "U+E000" in w.statusBar().currentMessage()
    w.close()
