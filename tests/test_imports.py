"""``import pdp_lib`` is cheap: heavy dependencies load only when a module that needs them is used.

Checked on ``sys.modules`` of a fresh interpreter, never on wall time
(``benchmarks/bench_import.py`` measures the time).
"""

import subprocess
import sys

HEAVY = ("scipy", "scipy.stats", "pandas", "sklearn", "matplotlib", "tqdm")


def _modules_after(code: str) -> set:
    out = subprocess.run([sys.executable, "-c", code + "; import sys; print('\\n'.join(sys.modules))"],
                         check=True, capture_output=True, text=True, timeout=120)
    return set(out.stdout.split())


def test_import_pdp_lib_loads_no_heavy_dependency():
    loaded = _modules_after("import pdp_lib")
    assert not loaded & set(HEAVY), sorted(loaded & set(HEAVY))


def test_the_mechanism_needs_only_numpy():
    loaded = _modules_after("import pdp_lib; pdp_lib.pdp_op; pdp_lib.calibrate; pdp_lib.threshold_dp")
    assert "numpy" in loaded
    assert not loaded & set(HEAVY), sorted(loaded & set(HEAVY))


def test_the_command_line_reads_its_settings_without_the_engine():
    loaded = _modules_after("import pdp_lib.cli")
    assert "pdp_lib.experiments.settings" in loaded
    assert "pdp_lib.experiments.engine" not in loaded and not loaded & set(HEAVY)


def test_every_public_name_resolves():
    import pdp_lib
    import pdp_lib.experiments as experiments

    for name in pdp_lib.__all__:
        assert getattr(pdp_lib, name) is not None, name
    for name in experiments.__all__:
        assert getattr(experiments, name) is not None, name
    assert set(pdp_lib.__all__) <= set(dir(pdp_lib))


def test_no_submodule_shares_a_name_with_an_exported_name():
    # a submodule bound as an attribute of its package would shadow an exported function of the
    # same name (as a module "reproduce" once shadowed the function): the names must differ
    from pathlib import Path

    import pdp_lib.experiments as experiments

    for package in (experiments,):
        modules = {p.stem for p in Path(package.__file__).parent.glob("*.py")} - {"__init__"}
        assert not modules & set(package.__all__), modules & set(package.__all__)
    code = ("import pdp_lib.experiments.rebuild, pdp_lib.experiments.cache;"
            "from pdp_lib.experiments import reproduce, reproduce_many; from pdp_lib.experiments.rebuild import "
            "reproduce as f; assert reproduce is f and callable(reproduce_many)")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_subpackages_import_their_modules_on_first_access():
    code = ("import sys, pdp_lib\n"
            "assert 'pdp_lib.mechanisms.threshold' not in sys.modules\n"
            "assert pdp_lib.mechanisms.threshold.threshold_dp is pdp_lib.threshold_dp\n"
            "assert pdp_lib.io.streaming.__name__ == 'pdp_lib.io.streaming'\n"
            "assert 'gaussian' in dir(pdp_lib.mechanisms) and 'dask_fit' in dir(pdp_lib.io)\n"
            "try:\n    pdp_lib.io.nothing\nexcept AttributeError as e:\n    print(e)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "module 'pdp_lib.io' has no attribute 'nothing'" in out.stdout
