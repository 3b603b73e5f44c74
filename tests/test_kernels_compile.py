import shutil
import subprocess

import pytest

from gemmviz.core.variants import VARIANTS

NVCC = shutil.which("nvcc")
CASES = [
    (v.name, combo)
    for v in VARIANTS.values()
    if v.source
    for combo in ([dict(zip(v.macros, values)) for values in zip(*(v.param_choices[k] for k in v.macros))] or [{}])
]


@pytest.mark.skipif(NVCC is None, reason="nvcc not found on PATH: cannot compile the kernels here")
@pytest.mark.parametrize("name, params", CASES, ids=[f"{n}-{p}" for n, p in CASES])
def test_kernel_compiles_for_sm90(name, params, tmp_path):
    v = VARIANTS[name]
    src = tmp_path / v.source
    src.write_text(v.source_text())
    cmd = [
        NVCC,
        "-cubin",
        *(("-gencode=arch=compute_90a,code=sm_90a",) if v.runner == "wgmma-tma" else ("-arch=sm_90",)),
        "-O3",
        *v.macro_options(params),
        "-o",
        str(tmp_path / "k.cubin"),
        str(src),
    ]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "k.cubin").stat().st_size > 0
