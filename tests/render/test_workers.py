"""The worker processes: a worker that fails before manim starts still leaves its traceback for the scene's log."""

import sys
import types

from render import workers


def test_a_worker_that_cannot_start_leaves_its_traceback():
    """Its target lives in a module only this process has (as when the code changed after the fork server
    started): the worker fails while unpickling it, before it could open a log of its own."""
    module = types.ModuleType("attention_only_in_the_parent")
    exec("def target():\n    pass\n", module.__dict__)
    sys.modules[module.__name__] = module
    try:
        process = workers.workers().Process(target=module.target)  # type: ignore[attr-defined]
        process.start()
        process.join(120)
    finally:
        del sys.modules[module.__name__]
    assert process.exitcode == 1
    said = workers.early_failure()
    assert "No module named 'attention_only_in_the_parent'" in said
    assert said.startswith("The worker ended before manim started.")
