"""A device query that raises (a broken driver) is a reason in the window's language, with the driver's detail
as it came, not a fixed English line."""

from __future__ import annotations

from gemmviz.core import messages
from gemmviz.ui.run import worker as worker_module


def test_a_failed_device_query_is_a_message_in_both_languages(monkeypatch):
    def broken(_backends):
        raise RuntimeError("cuDeviceGetAttribute: boom")

    monkeypatch.setattr(worker_module, "environment", broken)
    w = worker_module.EngineWorker({})
    got = []
    w.environmentReady.connect(got.append)
    w.probe()
    cuda = got[0]["backends"]["cuda"]
    assert cuda["available"] is False
    assert cuda["reason"] == "device query failed: cuDeviceGetAttribute: boom"
    assert messages.render(cuda["reason_message"], "zh") == "设备查询失败：cuDeviceGetAttribute: boom"
