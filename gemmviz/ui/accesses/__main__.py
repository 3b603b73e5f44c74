"""`python -m gemmviz.ui.accesses KIND OUT [--size WxH] [--dark] [--records FILE]`: one access view (coalescing or
banks) written to OUT in the chart format its suffix names, without the window."""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence

from gemmviz.core.hardware import accesses as acc
from gemmviz.ui.theme import theme_for

USAGE = "python -m gemmviz.ui.accesses coalescing|banks out.png [--size 1280x720] [--dark] [--records FILE]"


def main(argv: Sequence[str] | None = None) -> int:
    """The command line above; its exit status."""
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) < 2 or args[0] not in ("coalescing", "banks"):
        print(USAGE, file=sys.stderr)
        return 2
    width, height = (int(x) for x in (args[args.index("--size") + 1] if "--size" in args else "1920x1080").split("x"))
    records = acc.load_file(args[args.index("--records") + 1]) if "--records" in args else None
    if not os.environ.get("DISPLAY") and not os.environ.get("WAYLAND_DISPLAY"):
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtWidgets import QApplication

    from gemmviz.ui.accesses.export import export_access_view
    from gemmviz.ui.fonts import install_cjk_fallback

    app = QApplication.instance()
    if not isinstance(app, QApplication):
        app = QApplication(sys.argv[:1])
    install_cjk_fallback(app)
    out = export_access_view(args[0], args[1], width, height, theme_for(True, "--dark" in args), records)
    print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
