import atexit
import os
import sys
import threading

from .cli import main
from .jobs.lifecycle import Terminated, stop_on_sigterm

stop_on_sigterm()  # like Ctrl-C: a job's finally blocks run, and the processes it started end with it
try:
    code = main()
except SystemExit as exc:
    code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
except KeyboardInterrupt as exc:  # outside a job (which says what it kept): leave quietly, no traceback
    code = 143 if isinstance(exc, Terminated) else 130
if threading.active_count() > 1:
    # A worker ends with the engine's daemon threads (heartbeat, loky's executor manager) still alive; the
    # interpreter's teardown then makes nanobind (pyvinecopulib's bindings) print pages of "leaked function"
    # warnings about objects those threads still reach — not leaks of ours. Everything is written, committed
    # and closed by now (and the job's processes ended with it: jobs/backends.stop_local_workers), so leave
    # without the teardown — but after the exit handlers, which release what multiprocessing and joblib
    # registered with their resource trackers (they would report it as leaked).
    atexit._run_exitfuncs()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)
sys.exit(code)
