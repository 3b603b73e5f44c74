"""Whether this machine can run CUDA at all, and why not: PyCUDA, the driver, a device. Asked once per process
(the answer is cached), without creating a context; PyCUDA is imported only here and when a run opens.

The reasons are messages (core/messages): the window says them in its language, the CLI in English; the
driver's own detail is kept as it came."""

from __future__ import annotations

import threading

from gemmviz.core.messages import Message, define, msg, render

_status: tuple[bool, Message | None] | None = None
_status_lock = threading.Lock()


NO_PYCUDA = define(
    "cuda.reason.no_pycuda",
    en='PyCUDA is not installed (pip install "gemmviz[cuda]", needs the CUDA toolkit)',
    zh='未安装 PyCUDA（pip install "gemmviz[cuda]"，需要 CUDA 工具包）',
)
NO_LIBCUDA = define(
    "cuda.reason.no_libcuda",
    en="no NVIDIA driver: PyCUDA is installed but libcuda.so cannot be loaded",
    zh="没有 NVIDIA 驱动：已安装 PyCUDA，但无法加载 libcuda.so",
)
NO_DRIVER = define("cuda.reason.no_driver", en="no NVIDIA driver: {detail}", zh="没有 NVIDIA 驱动：{detail}")
CUINIT = define(
    "cuda.reason.cuinit",
    en="no usable NVIDIA driver: cuInit failed ({detail})",
    zh="NVIDIA 驱动不可用：cuInit 失败（{detail}）",
)
NO_COUNT = define("cuda.reason.count", en="cannot count CUDA devices ({detail})", zh="无法统计 CUDA 设备（{detail}）")
NO_DEVICE = define(
    "cuda.reason.no_device",
    en="no CUDA device: the driver found no NVIDIA GPU",
    zh="没有 CUDA 设备：驱动没有找到 NVIDIA GPU",
)
NO_BACKEND = define("cuda.reason.no_backend", en="no CUDA backend", zh="没有 CUDA 后端")
QUERY_FAILED = define("cuda.reason.query_failed", en="device query failed: {detail}", zh="设备查询失败：{detail}")


def cuda_status() -> tuple[bool, str]:
    """(True, 'ok') or (False, one line saying which of PyCUDA, the driver or a device is missing), in English."""
    ok, why = cuda_status_message()
    return ok, "ok" if why is None else render(why, "en")


def cuda_status_message() -> tuple[bool, Message | None]:
    """(True, None) or (False, why as a message: its key and the driver's detail), for any language."""
    global _status
    with _status_lock:
        if _status is None:
            _status = _probe()
        return _status


def _probe() -> tuple[bool, Message | None]:
    try:
        import pycuda.driver as cuda
    except ImportError as exc:
        text = str(exc)
        if "libcuda" in text:
            return False, msg(NO_LIBCUDA)
        return False, msg(NO_PYCUDA)
    except OSError as exc:
        return False, msg(NO_DRIVER, detail=str(exc))
    try:
        cuda.init()
    except Exception as exc:
        return False, msg(CUINIT, detail=str(exc))
    try:
        count = cuda.Device.count()
    except Exception as exc:
        return False, msg(NO_COUNT, detail=str(exc))
    if count == 0:
        return False, msg(NO_DEVICE)
    return True, None
