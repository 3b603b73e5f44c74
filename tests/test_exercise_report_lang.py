"""The check's report in the reader's language (issue 32): the lines the report writes itself (the header, the
sizes' states, the recorded figures, the emulated accesses and what was kept of them) are messages rendered in
English or Chinese, as its verdicts and causes already were. What a record stores as text (a verifier's reason,
a no-GPU reason) is shown as stored."""

from pathlib import Path

import pytest

from gemmviz.core.exercise.record import load_check
from gemmviz.core.exercise.report import report_text

RECORD = Path(__file__).parent / "data" / "exercise_tab" / "tiled_printf.check.json"

ENGLISH = ("exercise tiled:", "  right", "  WRONG", "recorded on", "accesses emulated", "kept in detail",
           "sectors/request", "wavefronts/request", "block (4, 4, 0)")  # fmt: skip
CHINESE = ("练习 tiled：", "  正确", "  错误", "录制于 NVIDIA H200", "在 CPU 上以 160×160×64 模拟的访存", "个请求中详细保留了",
           "全局加载每请求 4.00 个扇区", "共享内存写入每请求", "线程块 (4, 4, 0)：")  # fmt: skip


@pytest.mark.parametrize("lang, said, not_said", [("en", ENGLISH, CHINESE), ("zh", CHINESE, ENGLISH)])
def test_the_reports_own_lines_are_in_the_readers_language(lang, said, not_said):
    text = report_text(load_check(RECORD), lang)
    assert [s for s in said if s not in text] == []
    assert [s for s in not_said if s in text] == []


def test_the_english_report_reads_as_before():
    text = report_text(load_check(RECORD), "en").splitlines()
    assert text[0] == "exercise tiled: tests/data/exercise_tab/tiled_printf.cu"
    assert "             1×1×1  right" in text
    assert "  recorded on NVIDIA H200 (h200-2026-12-02.json, 2026-12-02), not on this machine:" in text
    head = "  accesses emulated on the CPU at 160×160×64, blocks (4, 4, 0), (9, 9, 0), yours beside the reference (gpu-tiled):"
    assert head in text
    # each block once, its figures beside the reference kernel's emulated on the same block
    blocks = [line for line in text if line.startswith("    block (")]
    assert [b.split(":")[0] for b in blocks] == ["    block (4, 4, 0)", "    block (9, 9, 0)"]
    assert all("shared loads" in b and "(reference " in b for b in blocks), blocks
    assert "    1,216 of 2,320 requests kept in detail; totals from all 2,320" in text
