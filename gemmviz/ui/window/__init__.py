"""The main window, one idea a module; MainWindow (main.py) is composed of mixins, each holding one part of it:

- main.py: the layout, the menus, the look;
- tabs.py: the tabs of ui/tabs.py's registry, built when first needed, made again in a language switch;
- run.py: runs started, cancelled and followed;
- device.py: the device line, and the recorded session where there is no GPU;
- lesson.py: lesson mode's host (ui/lesson/mode.LessonHost);
- files.py: the File menu, paths given or dropped;
- settings.py: settings restored and saved, the window shut down and closed;
- language.py: the language switched in place.

A mixin is a plain class at run time (QMainWindow only for mypy), so its words are marked
`QCoreApplication.translate("MainWindow", "…")`, never `self.tr("…")`: lupdate would file the latter under the
mixin's name, a context Qt's lookup for the window (its Qt classes' names) never tries.
"""

from gemmviz.ui.window.main import MainWindow

__all__ = ["MainWindow"]
