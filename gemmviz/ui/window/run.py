"""The main window's runs: the Run and Sweep buttons' plans started in the worker (bounded by what a session may
hold), cancelled, and their progress, results, failures and measured ceilings shown. A part of MainWindow
(ui/window/main.py)."""

from __future__ import annotations

from dataclasses import asdict
from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication, Slot
from PySide6.QtWidgets import QMainWindow

from gemmviz.core.measure.bench import Job
from gemmviz.core.problem import ProblemError
from gemmviz.core.session.bounds import MAX_RESULTS
from gemmviz.core.session.results import Result
from gemmviz.ui.run.controller import RunState

if TYPE_CHECKING:
    from PySide6.QtGui import QAction

    from gemmviz.core.session.workspace import Workspace
    from gemmviz.ui.charts.tab import ChartsTab
    from gemmviz.ui.recovery import Recovery
    from gemmviz.ui.run.controller import RunController
    from gemmviz.ui.run.panel import RunPanel
    from gemmviz.ui.status import RunProgress

    _Window = QMainWindow
else:
    _Window = object  # a mixin: MainWindow is the QMainWindow (its words: translate("MainWindow", …))


class WindowRun(_Window):
    """Run ▸ Run, Sweep, Cancel and the controller's answers."""

    if TYPE_CHECKING:  # the rest of the window this part uses (ui/window/main.py)
        workspace: Workspace
        controller: RunController
        recovery: Recovery
        run_panel: RunPanel
        progress: RunProgress
        run_action: QAction
        sweep_action: QAction
        last_run_settings: dict | None
        run_failures: list[Result]

        @property
        def charts_tab(self) -> ChartsTab: ...
        def show_error(self, title: str, text: str, details: str = "") -> None: ...
        def refresh(self) -> None: ...

    @property
    def running(self) -> bool:
        return self.controller.busy

    def validate(self, *_args) -> str | None:
        run_error, sweep_error = self.run_panel.validate(self.running)
        self.run_action.setEnabled(self.run_panel.run_button.isEnabled())
        self.sweep_action.setEnabled(self.run_panel.sweep_button.isEnabled())
        return run_error or sweep_error

    @Slot()
    def run_current(self) -> None:
        self._plan_and_start(lambda: [self.run_panel.current_problem()], "")

    @Slot()
    def run_sweep(self) -> None:
        self._plan_and_start(self.run_panel.sweep_problems, "Sweep: ")

    def _plan_and_start(self, problems, prefix: str) -> None:
        try:
            self.start(self.run_panel.plan(problems()))
        except ProblemError as exc:
            self.run_panel.message.setText(f"{prefix}{exc}")

    def start(self, jobs: list[Job]) -> None:
        """Run `jobs` in the worker; refused, with a dialog, where their results would take the live results past
        the MAX_RESULTS a session may hold (the recovery file and Save could not keep them)."""
        room = MAX_RESULTS - len(self.workspace.live)
        if len(jobs) > room:
            text = QCoreApplication.translate(
                "MainWindow",
                "This run has {jobs} jobs, but the live results can take only {room} more: a session "
                "holds at most {limit} results. Save the live results and clear them (File > Clear live "
                "results), or run fewer jobs.",
            ).format(jobs=f"{len(jobs):,}", room=f"{max(room, 0):,}", limit=f"{MAX_RESULTS:,}")
            self.run_panel.message.setText(text)
            self.show_error(QCoreApplication.translate("MainWindow", "Too many results"), text)
            return
        settings = self.run_panel.bench_settings()
        if not self.controller.start(jobs, settings):
            return
        self.last_run_settings = asdict(settings)
        self.run_failures = []
        self.charts_tab.new_run()
        self.progress.start(len(jobs))
        self.statusBar().showMessage(QCoreApplication.translate("MainWindow", "Running {0} job(s)…").format(len(jobs)))

    def run_settings(self) -> dict:
        """What the live results were measured with: the last run's settings, else the panel's (Save writes them)."""
        return self.last_run_settings or asdict(self.run_panel.bench_settings())

    def remember_run_settings(self, run_settings: dict) -> None:
        """The settings the live results were measured with (a recovered session's): Save writes them."""
        self.last_run_settings = dict(run_settings)

    @Slot()
    def cancel(self) -> None:
        if self.controller.cancel():
            self.statusBar().showMessage(
                QCoreApplication.translate("MainWindow", "Cancelling at the next launch boundary…")
            )

    def measure_ceilings(self) -> None:
        if not self.controller.measure_ceilings():
            self.statusBar().showMessage(
                QCoreApplication.translate("MainWindow", "Wait for the run to finish before measuring ceilings"), 5000
            )
            return
        self.statusBar().showMessage(
            QCoreApplication.translate("MainWindow", "Measuring this GPU's bandwidth and GEMM rates…")
        )

    @Slot(object)
    def _on_state(self, state: RunState) -> None:
        if state is RunState.IDLE:
            self.progress.stop()
        self.validate()

    @Slot(int, int, str, float)
    def _on_progress(self, done: int, total: int, label: str, seconds_left: float) -> None:
        self.progress.update(done, total, seconds_left)
        if done < total:
            self.statusBar().showMessage(f"{done}/{total}: {label}")

    @Slot(object)
    def _on_result(self, result: Result) -> None:
        self.workspace.add_live(result)
        # start() leaves room for one result a job; should a run give more, it stops here, every result kept
        if len(self.workspace.live) > MAX_RESULTS and self.controller.cancel():
            self.show_error(
                QCoreApplication.translate("MainWindow", "Run stopped"),
                QCoreApplication.translate(
                    "MainWindow",
                    "The live results passed the {limit} a session may "
                    "hold: the run stops here, every result kept. Save them, then clear them to run "
                    "more.",
                ).format(limit=f"{MAX_RESULTS:,}"),
            )
        self.recovery.write()
        # Failures (compile error, failed launch) and memory refusals get a dialog; other refusals
        # (a slow CPU loop, an unsupported tile) are explained in the table without interrupting.
        if result.status == "failed" or (result.status == "refused" and "memory" in (result.error or "")):
            self.run_failures.append(result)

    @Slot(object, bool)
    def _on_finished(self, results: list, cancelled: bool) -> None:
        ok = sum(r.valid for r in results)
        done = (
            QCoreApplication.translate("MainWindow", "Cancelled: {0} of {1} result(s) valid")
            if cancelled
            else QCoreApplication.translate("MainWindow", "Done: {0} of {1} result(s) valid")
        )
        self.statusBar().showMessage(done.format(ok, len(results)), 10000)
        if self.run_failures:
            first = self.run_failures[0]
            details = "\n\n".join(f"{r.series} at {r.problem.label}:\n{r.error}" for r in self.run_failures)
            self.show_error(
                QCoreApplication.translate("MainWindow", "A run failed"),
                QCoreApplication.translate("MainWindow", "{0} job(s) failed; first: {1} at {2}.").format(
                    len(self.run_failures), first.series, first.problem.label
                ),
                details,
            )

    @Slot(object)
    def _on_ceilings(self, data) -> None:
        if isinstance(data, str):
            self.show_error(QCoreApplication.translate("MainWindow", "Cannot measure the ceilings"), data)
            return
        self.statusBar().showMessage(
            QCoreApplication.translate("MainWindow", "Ceilings of {0}: {1} GB/s, FP32 GEMM {2} GFLOP/s").format(
                data["device"], f"{data['bandwidth_gbs']:,.0f}", f"{data['fp32_gemm_gflops']:,.0f}"
            ),
            10000,
        )
        self.refresh()
