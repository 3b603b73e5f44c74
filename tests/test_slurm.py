"""Grading a class on Slurm (issue 47, item 1): the job array that `exercise grade --slurm-script N` prints.

Without a cluster: the script quotes odd paths, runs a task's share and joins the task CSVs, and the docs show
its very output. Marked `slurm` (run on its own: `python -m pytest -m slurm tests/test_slurm.py`, as .ci/run
does): a real single-node cluster, started here as root from Debian's packages, grades a class of 200 odd-named
hand-ins with that script in 4 tasks on the CPU emulator; one task is cancelled mid-way and submitted again as
the script says; the joined CSV must hold one row per hand-in, with the grades a single process gives."""

from __future__ import annotations

import csv
import io
import os
import re
import shlex
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import pytest

from gemmviz.core.exercise.grading import cell, columns, in_shard
from gemmviz.core.exercise.slurm import SlurmJob, script, task_csv

DATA = Path(__file__).parent / "data" / "exercises"
DOCS = Path(__file__).parent.parent / "docs" / "exercises-grading.md"


def main(argv: list[str]) -> int:
    from gemmviz.cli.main import main as cli

    return cli(argv)


def _rows(path: Path) -> list[dict]:
    reader = csv.DictReader(io.StringIO(path.read_text(encoding="utf-8"), newline=""))
    assert reader.fieldnames == columns(), path
    return list(reader)


def _script(capsys, *argv: str) -> str:
    assert main(["exercise", "grade", *argv]) == 0
    return capsys.readouterr().out


def test_the_script_quotes_odd_paths_runs_a_share_and_joins_the_csvs(tmp_path, capsys):
    hand_ins = tmp_path / "hand ins 'of' $HOME `id` é"
    hand_ins.mkdir()
    for i in range(12):  # not kernels: each gets its row (the error) without a check, so no nvcc runs here
        (hand_ins / f"student {i}.cu").write_text("not a kernel\n", encoding="utf-8")
    grades = tmp_path / "grades"
    grades.mkdir()
    text = _script(capsys, str(hand_ins), "--exercise", "tiled", "--csv", str(grades / "t.csv"), "--slurm-script", "2")
    assert "#SBATCH --array=0-1" in text and f"#SBATCH --output={grades}/t-%a.log" in text
    assert sys.executable in text and '--shard "$i/2"' in text
    job = tmp_path / "grade.sh"
    job.write_text(text, encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith("SLURM_")}
    lost = subprocess.run(["bash", str(job)], env=env, capture_output=True, text=True)
    assert lost.returncode != 0 and "submit this with sbatch" in lost.stderr  # not run by Slurm: nothing graded
    for task in range(2):  # each task as Slurm starts it: bash, with its SLURM_ARRAY_TASK_ID
        done = subprocess.run(["bash", str(job)], env={**env, "SLURM_ARRAY_TASK_ID": str(task)}, capture_output=True)
        assert done.returncode == 0, done.stderr
    shares = [_rows(task_csv(grades / "t.csv", task)) for task in range(2)]
    names = [f"student {i}.cu" for i in range(12)]
    assert [sorted(r["file"] for r in share) for share in shares] == [
        sorted(n for n in names if in_shard(n, (task, 2))) for task in range(2)
    ]
    joined = subprocess.run(["bash", str(job), "join"], env=env, capture_output=True, text=True)
    assert joined.returncode == 0 and "joined 2 CSVs" in joined.stdout, joined.stderr
    assert sorted(r["file"] for r in _rows(grades / "t.csv")) == sorted(names)
    assert not list(grades.glob("*.joining"))


def test_the_script_is_refused_where_it_could_not_work(tmp_path, capsys):
    hand_ins = tmp_path / "class"
    hand_ins.mkdir()
    base = ["exercise", "grade", str(hand_ins), "--exercise", "tiled"]
    for args, words in (
        (["--csv", str(tmp_path / "g.csv"), "--slurm-script", "0"], "--slurm-script"),
        (["--csv", str(tmp_path / "g.csv"), "--slurm-script", "2", "--shard", "0/2"], "--shard"),
        (["--csv", str(tmp_path / "none" / "g.csv"), "--slurm-script", "2"], "folder that exists"),
    ):
        assert main([*base, *args]) == 2
        assert words in capsys.readouterr().err
    odd = tmp_path / "odd %folder"  # an #SBATCH line cannot name it: the logs go to Slurm's default instead
    odd.mkdir()
    text = _script(capsys, str(hand_ins), "--exercise", "tiled", "--csv", str(odd / "g.csv"), "--slurm-script", "2")
    assert "--output" not in text and "logs go to slurm-%A_%a.out" in text
    newline = tmp_path / "new\nline"  # a newline in a name cannot end a comment line and start a command
    newline.mkdir()
    text = _script(capsys, str(newline), "--exercise", "tiled", "--csv", str(odd / "g.csv"), "--slurm-script", "2")
    assert f"# Grades every .cu under '{tmp_path}/new\\nline'" in text
    echo = text.replace(f"exec {shlex.quote(sys.executable)} -m gemmviz", "printf '%s\\0'")  # the task's argv
    env = {**os.environ, "SLURM_ARRAY_TASK_ID": "1"}
    argv = subprocess.run(["bash", "-c", echo], env=env, capture_output=True, check=True).stdout.split(b"\0")
    assert argv[:5] == [b"exercise", b"grade", os.fsencode(newline), b"--exercise", b"tiled"]
    assert argv[5:9] == [b"--csv", os.fsencode(odd / "g-1.csv"), b"--shard", b"1/2"]


def test_the_docs_show_the_scripts_output():
    """docs/exercises-grading.md shows what --slurm-script prints for its example (one source for the recipe)."""
    job = SlurmJob(
        python="/opt/gemmviz/bin/python",
        folder=Path("/course/handins/tiled"),
        exercise="tiled",
        csv=Path("/course/grades/tiled.csv"),
        tasks=8,
        jobs=4,
        command="gemmviz exercise grade /course/handins/tiled --exercise tiled --csv /course/grades/tiled.csv "
        "--slurm-script 8 --jobs 4",
    )
    docs = DOCS.read_text(encoding="utf-8")
    shown = re.search(r"<!-- slurm-script -->\n```sh\n(.*?)```", docs, re.S)
    assert shown, "docs/exercises-grading.md: the script's output after <!-- slurm-script -->"
    assert shown[1] == script(job)


def test_a_text_is_checked_once_per_process_and_its_copies_share_the_grades(tmp_path, monkeypatch):
    """backends/grade_cache.check_once: what makes a class of copies cheap, and keeps identical files' grades equal."""
    from gemmviz.backends import grade_cache
    from gemmviz.backends.exercise import CheckOptions
    from gemmviz.core.exercise.exercises import find_exercise

    calls = []

    def check(path, exercise, options=None, progress=None):
        calls.append(Path(path).name)
        return {"file": str(path), "source": Path(path).read_text(encoding="utf-8"), "verdicts": [], "n": len(calls)}

    monkeypatch.setattr(grade_cache, "check_exercise", check)
    monkeypatch.setattr(grade_cache, "_RECORDS", {})
    text = (DATA / "tiled_good.cu").read_text(encoding="utf-8")
    for name, body in (("a.cu", text), ("b.cu", text), ("c.cu", "// mine\n" + text)):
        (tmp_path / name).write_text(body, encoding="utf-8")
    tiled = find_exercise("tiled")
    a, b, c = (grade_cache.check_once(tmp_path / n, tiled, CheckOptions(seed=1)) for n in ("a.cu", "b.cu", "c.cu"))
    assert calls == ["a.cu", "c.cu"] and b["n"] == a["n"] == 1 and c["n"] == 2
    assert b["file"] == str(tmp_path / "b.cu") and a["file"] == str(tmp_path / "a.cu")
    b["verdicts"].append("changed")  # a copy: the kept record is not touched
    assert grade_cache.check_once(tmp_path / "a.cu", tiled, CheckOptions(seed=1))["verdicts"] == []
    grade_cache.check_once(tmp_path / "a.cu", tiled, CheckOptions(seed=2))  # other options: checked again
    assert calls == ["a.cu", "c.cu", "a.cu"]


# ---------------------------------------------------------------------------------------------------------------
# A real cluster: Debian's slurmctld, slurmd and munge on this machine, as root.

PACKAGES = ("slurmctld", "slurmd", "slurm-client", "munge")
TOOLS = ("slurmctld", "slurmd", "sbatch", "squeue", "scancel", "scontrol", "sinfo", "munged")
SBIN = os.pathsep.join([os.environ.get("PATH", ""), "/usr/sbin", "/sbin"])
DAEMONS = ("munged", "slurmctld", "slurmd")


def _tool(name: str) -> str | None:
    return shutil.which(name, path=SBIN)


def _running(names=DAEMONS) -> set[int]:
    found = set()
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and (entry / "comm").read_text().strip() in names:
                found.add(int(entry.name))
        except OSError:
            pass
    return found


def _install() -> str | None:
    """Installs the packages where a tool is missing; None when everything is there, else why it cannot run."""
    if not sys.platform.startswith("linux"):
        return "needs Linux (Debian's Slurm packages)"
    if os.geteuid() != 0:
        return "needs root: it installs Debian's Slurm and munge packages and starts their daemons"
    if all(_tool(t) for t in TOOLS):
        return None
    if not (_tool("apt-get") and _tool("dpkg")):
        return f"no apt-get/dpkg to install {', '.join(PACKAGES)}: install them, then run this again"
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    install = ["apt-get", "install", "-y", "-qq", "--no-install-recommends", *PACKAGES]
    before = _running()
    done = subprocess.run(install, env=env, capture_output=True, text=True)
    if done.returncode != 0:  # a clean machine has no package lists yet
        subprocess.run(["apt-get", "update", "-qq"], env=env, capture_output=True)
        done = subprocess.run(install, env=env, capture_output=True, text=True)
    for pid in _running() - before:  # a package's script that started its daemon (no policy-rc.d): ours to stop
        _stop_pid(pid)
    if done.returncode != 0 or not all(_tool(t) for t in TOOLS):
        return f"{' '.join(install)} failed: {(done.stdout + done.stderr).strip()[-400:]}"
    return None


def _stop_pid(pid: int, signal: int = 15) -> bool:
    """Whether process `pid` ended within 20 s of `signal`."""
    try:
        os.kill(pid, signal)
        _until(lambda: _state(pid) in ("", "Z"), 20, f"process {pid} to end")
    except (ProcessLookupError, AssertionError):
        pass
    return _state(pid) in ("", "Z")


def _state(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return ""


def _until(condition, timeout_s: float, what: str):
    """Polls `condition` until it holds (returning its value) or `timeout_s` passes (a failure naming `what`)."""
    deadline = time.monotonic() + timeout_s
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"waited {timeout_s} s for {what}")
        time.sleep(0.1)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Cluster:
    """munged, slurmctld and slurmd started here, in the foreground (their PIDs are ours), on free ports, with
    their state, spool, logs and munge key in a folder of their own."""

    def __init__(self, root: Path):
        self.root = root
        self.procs: list[subprocess.Popen] = []
        self.jobs: list[str] = []
        self.started_s = self.install_s = 0.0
        self.marker = f"GEMMVIZ_SLURM_TEST={root}"  # in every daemon's and job's environment: what we started
        self.env = {**os.environ, "SLURM_CONF": str(root / "slurm.conf"), "GEMMVIZ_SLURM_TEST": str(root)}

    def _daemon(self, argv: list[str], name: str, **kw) -> subprocess.Popen:
        with open(self.root / f"{name}.out", "wb") as log:
            proc = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, env=self.env, **kw)
        self.procs.append(proc)
        return proc

    def start(self) -> None:
        import pwd

        t0 = time.monotonic()
        munge = pwd.getpwnam("munge")
        os.chmod(self.root, 0o755)  # munged (as munge) reaches its folder; it refuses a writable one
        folder = self.root / "munge"
        folder.mkdir(mode=0o755)
        key = folder / "munge.key"
        key.write_bytes(os.urandom(1024))
        key.chmod(0o400)
        for path in (folder, key):
            os.chown(path, munge.pw_uid, munge.pw_gid)
        sock = folder / "munge.socket"
        self._daemon(
            [
                _tool("munged"),
                "-F",
                f"--key-file={key}",
                f"--socket={sock}",
                f"--pid-file={folder}/munged.pid",
                f"--log-file={folder}/munged.log",
                f"--seed-file={folder}/munged.seed",
            ],
            "munged",
            user=munge.pw_uid,
            group=munge.pw_gid,
            extra_groups=[],
        )
        _until(lambda: sock.exists() or self._died(), 30, "munged's socket")
        (self.root / "slurm.conf").write_text(self.conf(sock), encoding="utf-8")
        for sub in ("state", "spool"):
            (self.root / sub).mkdir()
        self._daemon([_tool("slurmctld"), "-D", "-f", str(self.root / "slurm.conf")], "slurmctld")
        self._daemon([_tool("slurmd"), "-D", "-N", "localhost", "-f", str(self.root / "slurm.conf")], "slurmd")
        _until(lambda: self._died() or "idle" in self.run("sinfo", "-h", "-o", "%T", check=False), 60, "an idle node")
        self.started_s = time.monotonic() - t0

    def _died(self) -> bool:
        dead = [p for p in self.procs if p.poll() is not None]
        if dead:
            logs = {p.args[0]: self.logs() for p in dead}
            raise AssertionError(f"a daemon ended: {logs}")
        return False

    def logs(self) -> str:
        """The ends of the daemons' output and logs, for a failure's message."""
        files = [*sorted(self.root.glob("*.out")), *sorted(self.root.glob("*.log")), self.root / "munge" / "munged.log"]
        return "\n".join(f"== {p.name}\n{p.read_text(errors='replace')[-1500:]}" for p in files if p.exists())

    def conf(self, sock: Path) -> str:
        node = self.run("slurmd", "-C").split("\n")[0]  # this machine's CPUs and memory, as slurmd sees them
        hardware = " ".join(w for w in node.split() if w.startswith(("CPUs=", "RealMemory=")))
        r = self.root
        return f"""ClusterName=gemmviz
SlurmctldHost=localhost
SlurmctldPort={_free_port()}
SlurmdPort={_free_port()}
SlurmUser=root
AuthType=auth/munge
AuthInfo=socket={sock}
MpiDefault=none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
StateSaveLocation={r}/state
SlurmdSpoolDir={r}/spool
SlurmctldPidFile={r}/slurmctld.pid
SlurmdPidFile={r}/slurmd.pid
SlurmctldLogFile={r}/slurmctld.log
SlurmdLogFile={r}/slurmd.log
ReturnToService=2
MinJobAge=600
KillWait=10
NodeName=localhost NodeAddr=127.0.0.1 {hardware} State=UNKNOWN
PartitionName=grading Nodes=localhost Default=YES MaxTime=INFINITE State=UP
"""

    def run(self, *argv: str, check: bool = True, **kw) -> str:
        done = subprocess.run(
            [_tool(argv[0]) or argv[0], *argv[1:]], env=self.env, capture_output=True, text=True, **kw
        )
        if check and done.returncode != 0:
            raise AssertionError(f"{' '.join(argv)}: {done.stdout}{done.stderr}\n{self.logs()}")
        return done.stdout

    def submit(self, *argv: str, cwd: Path) -> str:
        job = self.run("sbatch", "--parsable", *argv, cwd=cwd).strip().split(";")[0]
        self.jobs.append(job)
        return job

    def queued(self, job: str) -> list[str]:
        """`squeue`'s words for the tasks of `job` still pending or running: TASK STATE ... (a squeue that failed
        otherwise than on a job slurmctld has forgotten says one task in an unknown state: not ended)."""
        argv = [_tool("squeue") or "squeue", "-h", "-r", "-j", job, "-o", "%K %T"]
        done = subprocess.run(argv, env=self.env, capture_output=True, text=True)
        if done.returncode != 0 and "Invalid job id" not in done.stderr:
            return ["?", "UNKNOWN"]
        return done.stdout.split()

    def states(self, job: str) -> dict[str, tuple[str, str]]:
        """Every task of `job` as scontrol knows it (ended ones too, for MinJobAge): task -> (state, exit code)."""
        text = self.run("scontrol", "-o", "show", "job", job)
        found = {}
        for line in text.splitlines():
            fields = dict(w.split("=", 1) for w in line.split() if "=" in w)
            found[fields.get("ArrayTaskId", "")] = (fields.get("JobState", ""), fields.get("ExitCode", ""))
        return found

    def ours(self, jobs_only: bool = False) -> set[int]:
        """Processes with our marker in their environment, this one left out: with `jobs_only`, a job's (the
        daemons and their own children, slurmctld's slurmscriptd, left out); else every one we started."""
        daemons = {p.pid for p in self.procs if p.poll() is None}
        found = set()
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit() or int(entry.name) == os.getpid():
                continue
            try:
                if self.marker.encode() not in (entry / "environ").read_bytes().split(b"\0"):
                    continue
                parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            if not (jobs_only and (int(entry.name) in daemons or parent in daemons)) and _state(int(entry.name)) != "Z":
                found.add(int(entry.name))
        return found

    def stop(self) -> list[str]:
        """Cancels our jobs and waits for their processes, then stops the daemons by PID (whatever happened
        before); returns what had to be killed or did not end."""
        left = []
        try:
            if self.jobs and all(p.poll() is None for p in self.procs):
                for job in self.jobs:
                    self.run("scancel", job, check=False)
                _until(lambda: not any(map(self.queued, self.jobs)) and not self.ours(True), 60, "our jobs to end")
        except AssertionError as exc:
            left.append(str(exc))
        finally:
            for proc in reversed(self.procs):  # slurmd, slurmctld, munged
                proc.terminate()
                try:
                    proc.wait(30)
                except subprocess.TimeoutExpired:
                    left.append(f"{proc.args[0]} ({proc.pid}) ignored SIGTERM")
                    proc.kill()
                    proc.wait(30)
        try:
            _until(lambda: not self.ours(), 20, "every process we started to end")
        except AssertionError:
            for pid in self.ours():  # started by our daemons (our marker), and still there: killed by PID
                left.append(f"{Path(f'/proc/{pid}/cmdline').read_bytes()!r} ({pid}) outlived the daemons")
                _stop_pid(pid, 9)
        return left


@pytest.fixture
def cluster():
    t0 = time.monotonic()
    why = _install()
    if why:
        pytest.skip(f"no Slurm cluster here: {why}")
    root = Path(tempfile.mkdtemp(prefix="gemmviz-slurm-"))
    here = Cluster(root)
    here.install_s = time.monotonic() - t0
    try:
        here.start()
        yield here
    finally:
        left = here.stop()
        shutil.rmtree(root, ignore_errors=True)
        assert not left, left  # every daemon and job process we started has ended


# Odd names: blanks, quotes, unicode, shell and spreadsheet syntax, a newline; folders of such names too.
ODD = [
    "alice",
    "Bob O'Neil",
    'say "hi"',
    "café",
    "学生 张",
    "rocket 🚀",
    "a,b",
    "=1+1",
    "-dash",
    "$HOME",
    "`id`",
    "tab\tname",
    "new\nline",
    "back\\slash",
    "*?[x]",
]
FOLDERS = ["", "section A/", "séance 2/"]
VICTIM = 1  # the array task cancelled mid-way
KERNELS = ("tiled_good", "tiled_or", "tiled_nosync", "tiled_offbyone", "tiled_conflicts")


def _make_class(folder: Path, count: int = 210, late: int = 4) -> list[str]:
    """`count` hand-ins, odd names: copies of the test corpus's correct and wrong kernels, of one that does not
    compile, and of two that are no kernel of this exercise (6 distinct checks: the grader checks a text once);
    then `late` more, each a text of its own, named to be the last ones task VICTIM grades: once its CSV holds a
    row, `late` checks at least are left for the cancel to cut."""
    texts = [(DATA / f"{name}.cu").read_text(encoding="utf-8") for name in KERNELS]
    texts.append((DATA / "tiled_good.cu").read_text(encoding="utf-8").replace("__syncthreads();", "__syncthreads()"))
    texts += [(DATA / "naive_good.cu").read_text(encoding="utf-8"), "my kernel is on the other laptop\n"]
    names = []
    for i in range(count):
        name = f"{FOLDERS[i % len(FOLDERS)]}{ODD[i % len(ODD)]} {i:03d}.cu"
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(texts[(i * 7) % len(texts)], encoding="utf-8")
        names.append(name)
    mine = (n for n in (f"zz late {k}.cu" for k in range(1000)) if in_shard(n, (VICTIM, 4)))
    for k, name in zip(range(late), mine, strict=False):
        (folder / name).write_text(f"// handed in late, version {k}\n{texts[0]}", encoding="utf-8")
        names.append(name)
    return names


@pytest.mark.slurm
def test_a_class_graded_by_the_job_array_on_a_real_cluster(cluster, capsys):
    work = cluster.root / "course"
    hand_ins = work / "hand-ins 'tiled' é"
    names = _make_class(hand_ins)
    grades = work / "grades"
    grades.mkdir()
    env = {**cluster.env, "GEMMVIZ_CACHE_DIR": str(work / "cache-single")}
    grade = [sys.executable, "-m", "gemmviz", "exercise", "grade", str(hand_ins), "--exercise", "tiled", "--seed", "1"]

    t0 = time.monotonic()
    single = subprocess.run([*grade, "--csv", str(work / "single.csv")], env=env, capture_output=True, text=True)
    single_s = time.monotonic() - t0
    assert single.returncode == 0, single.stderr[-2000:]

    text = subprocess.run(
        [*grade, "--csv", str(grades / "tiled.csv"), "--slurm-script", "4"],
        env=cluster.env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    job_file = work / "grade.sh"
    job_file.write_text(text, encoding="utf-8")
    share = {t: [n for n in names if in_shard(n, (t, 4))] for t in range(4)}
    victim = VICTIM
    t0 = time.monotonic()
    job = cluster.submit(str(job_file), cwd=work)
    part = task_csv(grades / "tiled.csv", victim)
    # cancel the task once its CSV holds some rows, while it still runs (a condition, not a timer)
    _until(lambda: part.exists() and len(_rows(part)) >= 1, 120, f"task {victim}'s first rows")
    cluster.run("scancel", f"{job}_{victim}")
    _until(lambda: str(victim) not in cluster.queued(job)[::2], 60, "the cancelled task to end")
    cut = len(_rows(part))
    state, _code = cluster.states(job)[str(victim)]
    assert state == "CANCELLED" and cut < len(share[victim]), (state, cut, len(share[victim]))
    again = cluster.submit(f"--array={victim}", str(job_file), cwd=work)  # as the script says
    _until(lambda: not cluster.queued(job) and not cluster.queued(again), 300, "every task to end")
    joined = subprocess.run(["bash", str(job_file), "join"], env=cluster.env, capture_output=True, text=True)
    slurm_s = time.monotonic() - t0
    assert joined.returncode == 0, joined.stderr

    ended = {**cluster.states(job), **cluster.states(again)}  # task 1: as its second run ended
    assert all(ended[str(t)] == ("COMPLETED", "0:0") for t in range(4)), (ended, cluster.logs())
    log = task_csv(grades / "tiled.csv", victim).with_suffix(".log").read_text(encoding="utf-8", errors="replace")
    resumed = re.findall(r"(\d+) checked now .*?, (\d+) kept from", log)[-1]
    assert int(resumed[1]) == cut and int(resumed[0]) + cut == len(share[victim]), log[-2000:]

    rows = _rows(grades / "tiled.csv")
    count = Counter(r["file"] for r in rows)
    assert sorted(count) == sorted(map(cell, names)) and set(count.values()) == {1}  # every hand-in: exactly one row
    alone = {r["file"]: r for r in _rows(work / "single.csv")}
    differ = {f: {c: (r[c], alone[f][c]) for c in r if r[c] != alone[f][c]} for f, r in ((r["file"], r) for r in rows)}
    assert not any(differ.values()), {f: (d, [r for r in rows if r["file"] == f]) for f, d in differ.items() if d}
    verdicts = Counter(r["passed"] for r in rows)
    assert verdicts["yes"] and verdicts["no"]
    with capsys.disabled():
        print(
            f"\n{len(names)} hand-ins ({verdicts['yes']} passed): one process {single_s:.1f} s; the Slurm array of 4 "
            f"tasks, task {victim} cancelled after {cut} of {len(share[victim])} rows and resubmitted, then "
            f"joined: {slurm_s:.1f} s (the packages: {cluster.install_s:.1f} s; the daemons started in "
            f"{cluster.started_s:.1f} s)"
        )
