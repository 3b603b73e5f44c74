"""A signal that comes while Python imports a module (core/interrupt.py, _importing) is not raised there: an
extension module's initialisation may swallow it and leave the module half made, and the command then ran on to
its end (`exercise check` under SIGTERM as the emulator imported numpy.random). It is sent again a moment later,
and raised where the command is by then."""

from __future__ import annotations

import signal
import sys
import time

import pytest

from gemmviz.core import interrupt

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")


def test_a_signal_during_an_import_is_raised_after_it(tmp_path, monkeypatch):
    (tmp_path / "gemmviz_probe_module.py").write_text("import sys\nFRAME = sys._getframe()\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    import gemmviz_probe_module  # its FRAME: a frame inside the import machinery

    with interrupt.handled():
        interrupt._handler(signal.SIGTERM, gemmviz_probe_module.FRAME)  # not raised inside the import
        deadline = time.monotonic() + 30
        with pytest.raises(interrupt.Interrupted) as raised:
            while time.monotonic() < deadline:  # until the signal sent again is raised here
                time.sleep(0.005)
        assert raised.value.code == 143
    monkeypatch.delitem(sys.modules, "gemmviz_probe_module")
