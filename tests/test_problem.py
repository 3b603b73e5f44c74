import pytest

from gemmviz.core.problem import Problem, ProblemError, check_gpu_memory, check_host_memory, parse_problem


def test_parse_square_and_mnk():
    assert parse_problem("1024") == Problem(1024, 1024, 1024)
    assert parse_problem("2048x4096x3072") == Problem(2048, 4096, 3072)
    assert parse_problem(" 17×33×65 ") == Problem(17, 33, 65)


@pytest.mark.parametrize(
    "text, message",
    [
        ("0", "at least 1"),
        ("-5", "at least 1"),
        ("abc", "whole number"),
        ("1.5", "whole number"),
        ("2x3", "N or MxNxK"),
        ("2x0x3", "N must be at least 1"),
        ("", "whole number"),
    ],
)
def test_bad_sizes_say_why(text, message):
    with pytest.raises(ProblemError, match=message):
        parse_problem(text)


def test_problem_rejects_non_integers():
    with pytest.raises(ProblemError):
        Problem(2.0, 2, 2)
    with pytest.raises(ProblemError):
        Problem(True, 2, 2)


def test_flops_and_bytes():
    p = Problem(2, 3, 4)
    assert p.flops == 2 * 2 * 3 * 4
    assert p.matrix_bytes == 4 * (2 * 4 + 4 * 3 + 2 * 3)


def test_memory_checks_refuse_before_allocating():
    p = Problem(100_000, 100_000, 100_000)
    with pytest.raises(ProblemError, match="host memory"):
        check_host_memory(p, available=8 * 2**30)
    with pytest.raises(ProblemError, match="GPU memory"):
        check_gpu_memory(p, free_bytes=80 * 2**30)
    check_host_memory(Problem(64, 64, 64), available=8 * 2**30)


def test_available_host_memory_comes_from_psutil(monkeypatch):
    import sys

    import psutil

    from gemmviz.core.problem import host_available_bytes

    monkeypatch.setattr(psutil, "virtual_memory", lambda: type("VM", (), {"available": 12345})())
    assert host_available_bytes() == 12345
    monkeypatch.setitem(sys.modules, "psutil", None)  # psutil missing: the check is skipped, not guessed
    assert host_available_bytes() is None
    check_host_memory(Problem(10**5, 10**5, 10**5))  # no refusal without a figure
