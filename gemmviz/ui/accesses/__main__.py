"""`python -m gemmviz.ui.accesses KIND OUT [--size WxH] [--dark] [--records FILE]`: one access view (coalescing or
banks) written to OUT in the chart format its suffix names, without the window."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from gemmviz.core.hardware import accesses as acc
from gemmviz.core.parsing import parse_pixels
from gemmviz.core.problem import ProblemError
from gemmviz.core.session.checks import SessionError
from gemmviz.core.text import printable
from gemmviz.ui.theme import theme_for


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m gemmviz.ui.accesses", description=__doc__.splitlines()[0])
    p.add_argument("kind", choices=("coalescing", "banks"))
    p.add_argument("out", help="the image to write (its suffix names the format: .png, .svg)")
    p.add_argument("--size", default="1920x1080", help="pixels, WxH (default %(default)s)")
    p.add_argument("--dark", action="store_true", help="dark theme")
    p.add_argument("--records", metavar="FILE", help="an access recording (default: the shipped one)")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """The command line above; its exit status: 0, 1 (the image could not be written), 2 (a bad argument or
    input file), each refusal in one line on stderr."""
    args = _parser().parse_args(argv)
    try:
        width, height = parse_pixels(args.size)  # each side and the pixel budget
        records = acc.load_file(args.records) if args.records is not None else None
    except (ProblemError, SessionError, OSError, ValueError) as exc:
        print(f"gemmviz: error: {printable(exc)}", file=sys.stderr)
        return 2
    if not os.environ.get("DISPLAY") and not os.environ.get("WAYLAND_DISPLAY"):
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtWidgets import QApplication

    from gemmviz.ui.accesses.export import export_access_view
    from gemmviz.ui.export.exporters import ExportError
    from gemmviz.ui.fonts import install_cjk_fallback

    app = QApplication.instance()
    if not isinstance(app, QApplication):
        app = QApplication(sys.argv[:1])
    install_cjk_fallback(app)
    try:
        out = export_access_view(args.kind, args.out, width, height, theme_for(True, args.dark), records)
    except (ExportError, OSError) as exc:
        print(f"gemmviz: error: {printable(exc)}", file=sys.stderr)
        return 1
    print(printable(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
