import subprocess
import sys

BLOCK_QT = """
import sys
class Block:
    def find_spec(self, name, path=None, target=None):
        if name.split('.')[0] in ('PySide6', 'shiboken6', 'pyqtgraph', 'PyQt5', 'PyQt6', 'pycuda'):
            raise ImportError('blocked: ' + name)
sys.meta_path.insert(0, Block())
import gemmviz.core.problem, gemmviz.core.variants, gemmviz.core.model, gemmviz.core.results, gemmviz.core.bench
import gemmviz.backends, gemmviz.backends.cpu, gemmviz.backends.cuda, gemmviz.cli
from gemmviz.backends import default_backends
print(default_backends()['cuda'].availability()[0] in (True, False))
"""


def test_core_backends_and_cli_import_without_qt_or_pycuda():
    proc = subprocess.run([sys.executable, "-c", BLOCK_QT], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "True"
