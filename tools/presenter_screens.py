"""Screenshots of the presenter's tools for docs/presenting.md, at 1280×720 and 1920×1080:

    QT_QPA_PLATFORM=offscreen python tools/presenter_screens.py OUTDIR [en|zh]

(in Chinese the files end in -zh.png: presenter-1280x720-zh.png)

- presenter-WxH.png: the presenter's window (current slide, next slide, notes, clock, step i of n) on a step of
  seed000's tiled animation, at its first barrier;
- projected-WxH.png: the projected window at the same moment (the slide alone, no menu bar): what a one-screen
  or mirrored setup shows too, the presenter's window behind N;
- presenter-help-WxH.png: the presenter's window with its keys (F1 or ?) in place of the notes, a step number
  being typed and the projected screen blanked (B);
- code-view-WxH.png and side-view-WxH.png: a "code" and a "side" step drawn as slides (projector type);
- tiling-beside-code-WxH.png: the Tiling tab in projector type with the naive kernel beside the tiled one and
  the code pane open;
- tiling-edge-padding-WxH.png: the Tiling tab at an edge block (6, 4) of 100×70×90, TILE 16, at its last load:
  the zero-padded strips of both shared tiles;
- side-pad-view-WxH.png: a "side" step, the tiled kernel beside the padded one at that edge block.

No GPU: the window replays the recorded H200 session, as a first start without one does. The one speaker note
shown is written here (the shipped lessons get theirs from their author): it says what the teacher does.
"""

from __future__ import annotations

import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QApplication

NOTE = {
    "en": "Press . to step the animation to the first __syncthreads(): every thread of the block waits until both "
    "tiles are in shared memory. Press . again: each value loaded is now read by 16 threads.",
    "zh": "按 . 把动画推进到第一个 __syncthreads()：线程块的所有线程都要等两个 tile 都进入共享内存。"
    "再按 . ：每个载入的值现在被 16 个线程读取。",
}
DEMO = {  # the demo steps' titles and texts (the shipped lessons have no code or side step)
    "en": (
        ("The two barriers, in the code", "Each __syncthreads() is highlighted as the animation reaches it."),
        ("Naive and tiled, in lockstep", "The same block, the same k: 16 times fewer global loads."),
        ("Tiled and padded, in lockstep", "The extra column moves the banks: at TILE 16 the stores conflict."),
    ),
    "zh": (
        ("代码里的两个屏障", "动画走到哪个 __syncthreads()，代码里就高亮哪一行。"),
        ("朴素与分块，同步对照", "同一个线程块、同一个 k：全局加载少 16 倍。"),
        ("分块与填充，同步对照", "多出的一列改变了 bank：TILE 16 时写入反而冲突。"),
    ),
}


def pump(app, seconds: float) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        app.processEvents()
        time.sleep(0.01)


def main() -> None:
    out = Path(sys.argv[1])
    lang = sys.argv[2] if len(sys.argv) > 2 else "en"
    tail = "" if lang == "en" else f"-{lang}"
    out.mkdir(parents=True, exist_ok=True)
    app = QApplication(sys.argv[:1])
    from gemmviz.ui import i18n

    i18n.install(app, lang)
    from gemmviz.backends import default_backends
    from gemmviz.core.lesson.lessons import lesson_session, shipped_lessons
    from gemmviz.core.lesson.views import AnimationState
    from gemmviz.core.problem import Problem
    from gemmviz.ui.fonts import install_cjk_fallback
    from gemmviz.ui.lesson import mode
    from gemmviz.ui.lesson.render import render_slide_image
    from gemmviz.ui.window import MainWindow

    install_cjk_fallback(app)
    lesson = shipped_lessons(lang)["seed000"]
    index = next(i for i, s in enumerate(lesson.steps) if s.animation and s.animation.variant == "gpu-tiled")
    steps = list(lesson.steps)
    steps[index] = replace(steps[index], notes=steps[index].notes or NOTE[lang])
    lesson = replace(lesson, steps=tuple(steps))

    for w, h in ((1280, 720), (1920, 1080)):
        settings = QSettings(tempfile.mktemp(suffix=".ini"), QSettings.Format.IniFormat)
        window = MainWindow(default_backends(), settings=settings, load_recorded_without_gpu=False)
        window.set_projector(True)
        window.show()
        assert mode.open_presenter(window, lesson)
        window.showNormal()
        window.resize(w, h)
        presenter = window.lesson_presenter
        presenter.resize(w, h)
        view = window.lesson_view
        view.go(index)
        view.deck.set_frame(1)  # the first __syncthreads(), as . reaches it from the load
        pump(app, 1.5)
        for pane in (presenter.current, presenter.next):
            pane.draw_slide()
        pump(app, 0.5)
        presenter.grab().save(str(out / f"presenter-{w}x{h}{tail}.png"))
        window.grab().save(str(out / f"presenter-projected-{w}x{h}{tail}.png"))
        deck = view.deck
        deck.helpRequested.emit()  # F1
        deck.set_blank("black")  # B
        deck._type("12")  # 1, 2 (Enter would go to step 12)
        pump(app, 0.3)
        presenter.grab().save(str(out / f"presenter-help-{w}x{h}{tail}.png"))
        deck._type("")
        deck.set_blank(None)
        presenter.toggle_help()
        window.leave_lesson()
        window.showNormal()
        window.resize(w, h)  # leaving the lesson gives the window back its size from before it
        window.tabs.setCurrentWidget(window.tiling)
        tiling = window.tiling
        tiling.set_problem(Problem(100, 70, 90), tile=32, variant="gpu-tiled")
        tiling.block_y.setValue(2)
        tiling.block_x.setValue(1)
        tiling.beside_combo.setCurrentIndex(tiling.beside_combo.findData("gpu-naive"))
        tiling.code_button.setChecked(True)
        tiling._code_clicked(True)
        tiling.go(2)
        pump(app, 1.0)
        window.grab().save(str(out / f"tab-tiling-beside-code-{w}x{h}{tail}.png"))
        tiling.beside_combo.setCurrentIndex(0)
        tiling.code_button.setChecked(False)
        tiling._code_clicked(False)
        tiling.set_problem(Problem(100, 70, 90), tile=16, variant="gpu-tiled")
        tiling.block_y.setValue(6)
        tiling.block_x.setValue(4)
        tiling.go(len(tiling.schedule.steps) - 5)  # the last k-tile's load: both tiles partly zero-padded
        pump(app, 1.0)
        window.grab().save(str(out / f"tab-tiling-edge-padding-{w}x{h}{tail}.png"))
        window.close()
        source = lesson_session(lesson)
        a = steps[index].animation
        (code_t, code_x), (side_t, side_x), (pad_t, pad_x) = DEMO[lang]
        code = replace(steps[index], view="code", title=code_t, text=code_x, animation=replace(a, tile=32, step=1))
        side = replace(
            steps[index],
            view="side",
            title=side_t,
            text=side_x,
            animation=AnimationState("gpu-naive", Problem(64, 64, 64), 16, 6, (0, 0), "and", ("gpu-tiled", 16)),
        )
        edge = Problem(100, 70, 90)
        pad = replace(
            steps[index],
            view="side",
            title=pad_t,
            text=pad_x,
            animation=AnimationState("gpu-tiled", edge, 16, 20, (6, 4), "and", ("gpu-tiled-pad", 16)),
        )
        for name, step in (("code-view", code), ("side-view", side), ("side-pad-view", pad)):
            demo = replace(lesson, steps=(*lesson.steps[:index], step, *lesson.steps[index + 1 :]))
            render_slide_image(w, h, demo, index, source, True).save(str(out / f"lesson-{name}-{w}x{h}{tail}.png"))


if __name__ == "__main__":
    main()
