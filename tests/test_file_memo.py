"""core.fileio.FileMemo: a value worked out from files is kept while the files stay the same and worked out
again once one changes; a failed computation is not kept; a file gone is read through, keeping nothing."""

from __future__ import annotations

import os

import pytest

from gemmviz.core.fileio import FileMemo


def test_kept_while_the_file_is_the_same_and_read_again_when_it_changes(tmp_path):
    f = tmp_path / "a.json"
    f.write_text("1")
    memo, reads = FileMemo(), []

    def load():
        reads.append(1)
        return f.read_text()

    assert memo.get([f], load) == "1" and memo.get([f], load) == "1" and len(reads) == 1
    f.write_text("22")  # another size (and time): read again
    os.utime(f, ns=(1, 1))
    assert memo.get([f], load) == "22" and len(reads) == 2


def test_a_failure_is_not_kept_and_a_gone_file_keeps_nothing(tmp_path):
    f = tmp_path / "a.json"
    f.write_text("x")
    memo = FileMemo(size=2)

    def broken():
        raise ValueError("bad")

    with pytest.raises(ValueError):
        memo.get([f], broken)
    assert memo.get([f], lambda: "good") == "good"
    gone, calls = tmp_path / "gone.json", []
    assert memo.get([gone], lambda: calls.append(1) or "read through") == "read through"
    assert memo.get([gone], lambda: calls.append(1) or "read through") == "read through" and len(calls) == 2


def test_at_most_size_entries_the_oldest_going_first(tmp_path):
    files = [tmp_path / f"{i}.txt" for i in range(3)]
    for p in files:
        p.write_text(p.name)
    memo, reads = FileMemo(size=2), []
    for p in files:
        memo.get([p], lambda p=p: reads.append(p.name) or p.name)
    memo.get([files[2]], lambda: reads.append("again") or "x")  # still kept
    memo.get([files[0]], lambda: reads.append("again") or "x")  # the oldest went
    assert reads == ["0.txt", "1.txt", "2.txt", "again"]
