import os

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


def pytest_collection_modifyitems(config, items):
    from gemmviz.backends.cuda import cuda_status

    ok, reason = cuda_status()
    if ok:
        return
    skip = pytest.mark.skip(reason=f"needs a CUDA GPU: {reason}")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(autouse=True)
def _isolated_cache(tmp_path, monkeypatch):
    """Never write to the user's cache or settings from a test."""
    monkeypatch.setenv("GEMMVIZ_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("GEMMVIZ_CONFIG_DIR", str(tmp_path / "config" / "gemmviz"))
