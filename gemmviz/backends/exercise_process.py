"""A check's child process (backends/exercise_child.py, emulate_child.py, nvcc, the tools): run in a process group
of its own under a time limit and, where asked, the sandbox's memory limit; its JSON lines read as events; the
whole group killed at the limit, on a cancel or on a signal."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from gemmviz.backends import sandbox


class Cancelled(Exception):
    pass


@dataclass
class ChildRun:
    events: list[dict]
    returncode: int | None
    stderr: str
    timed_out: bool
    stdout: str = ""  # its other lines (nvcc's messages)
    stopped: str | None = None  # the limit that stopped it: "time" or "memory" (sandbox.stopped_text says it)


def run_child(
    argv: list[str],
    limit_s: float,
    cancel: threading.Event,
    env: dict | None = None,
    cwd: Path | None = None,
    memory_bytes: int | None = None,
) -> ChildRun:
    """Run argv in a new process group; read its JSON lines; at limit_s or on cancel (checked every 50 ms, so a
    cancel ends the step within half a second) send the group SIGTERM, then SIGKILL after sandbox.GRACE_S; on any
    exception while it runs (a signal) SIGKILL at once. `memory_bytes`: the work's address-space limit
    (sandbox.Limits); a child that reached it is `stopped` "memory". Whatever the group left running when its
    leader ended is killed too."""
    limits = sandbox.Limits(limit_s, memory_bytes)
    if memory_bytes is not None:
        argv, env = sandbox.limited_argv(argv, limits), sandbox.limited_env(env)
    proc = subprocess.Popen(
        argv,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        errors="replace",
        start_new_session=True,
        env=env,
        cwd=cwd,
    )
    events: list[dict] = []
    err: list[str] = []
    out: list[str] = []
    readers = _readers(proc, events, out, err)
    t0, timed_out = time.monotonic(), False
    try:
        while proc.poll() is None:
            if cancel.is_set() or time.monotonic() - t0 > limit_s:
                timed_out = not cancel.is_set()
                _kill(proc)
                break
            time.sleep(0.05)
    except BaseException:  # Ctrl+C, SIGTERM, a grading run's stop: the step's processes end with it, at once
        _kill(proc, grace_s=0)
        raise
    proc.wait()
    _signal_group(proc.pid, signal.SIGKILL)  # what the leader left behind (nvcc's cicc, a child's child)
    for r in readers:
        r.join(timeout=2)
    if cancel.is_set():
        raise Cancelled
    stopped = "time" if timed_out else None
    if memory_bytes is not None and not timed_out:
        said = "".join(out) + "".join(err)
        if any(e.get("event") == "memory" for e in events) or sandbox.ran_out_of_memory(proc.returncode, said):
            stopped = "memory"
    return ChildRun(events, proc.returncode, "".join(err), timed_out, "".join(out), stopped)


def _readers(proc: subprocess.Popen, events: list[dict], out: list[str], err: list[str]) -> list[threading.Thread]:
    """Threads that read the child's JSON lines into events, its other lines into out and err (200 kB each)."""

    kept = {id(out): 0, id(err): 0}  # characters kept so far: a million lines stay linear

    def keep(into: list[str], line: str) -> None:
        if kept[id(into)] < 200_000:
            into.append(line)
            kept[id(into)] += len(line)

    def read_out():
        for line in proc.stdout or ():  # a pipe: run_child made it
            text = line.strip()
            if text.startswith("{"):
                try:
                    events.append(json.loads(text))
                    continue
                except json.JSONDecodeError:
                    pass
            keep(out, line)

    def read_err():
        for line in proc.stderr or ():
            keep(err, line)

    readers = [threading.Thread(target=f, daemon=True) for f in (read_out, read_err)]
    for r in readers:
        r.start()
    return readers


def _signal_group(pid: int, sig: int) -> bool:
    """Send sig to the process group led by pid; False where there is none left."""
    try:
        os.killpg(pid, sig)
    except ProcessLookupError:
        return False
    except PermissionError:
        return False
    return True


def _kill(proc: subprocess.Popen, grace_s: float | None = None) -> None:
    """SIGTERM to the child's whole group, then SIGKILL to what is still there after grace_s (sandbox.GRACE_S),
    and wait for it: gone before the caller removes the folder it wrote into."""
    grace_s = sandbox.GRACE_S if grace_s is None else grace_s
    if grace_s > 0 and _signal_group(proc.pid, signal.SIGTERM):
        try:
            proc.wait(timeout=grace_s)
        except subprocess.TimeoutExpired:
            pass
    if not _signal_group(proc.pid, signal.SIGKILL):
        proc.kill()
    try:
        proc.wait(2)
    except subprocess.TimeoutExpired:
        pass
    deadline = time.monotonic() + 2  # the leader's children too (cicc writing into the folder the caller removes)
    while _signal_group(proc.pid, 0) and time.monotonic() < deadline:
        time.sleep(0.01)


def child_env(tmp: Path) -> dict:
    env = dict(os.environ)
    env["TMPDIR"] = str(tmp)  # nvcc's and the tools' temporary files go to gemmviz's cache, not /tmp
    return env


def child_argv(spec: dict, folder: Path) -> list[str]:
    path = folder / f"spec-{spec['mode']}-{os.getpid()}-{threading.get_ident()}.json"
    path.write_text(json.dumps(spec), encoding="utf-8")
    return [sys.executable, "-m", "gemmviz.backends.exercise_child", str(path)]


def emulate_child_argv(spec: dict, folder: Path) -> list[str]:
    path = folder / f"spec-{spec['mode']}-{os.getpid()}-{threading.get_ident()}.json"
    path.write_text(json.dumps(spec), encoding="utf-8")
    return [sys.executable, "-m", "gemmviz.backends.emulate_child", str(path)]
