import os
import sys
import threading

from .cli import main

code = main()
if threading.active_count() > 1:
    # A worker ends with the engine's daemon threads (heartbeat, loky's executor manager) still alive; the
    # interpreter's teardown then makes nanobind (pyvinecopulib's bindings) print pages of "leaked function"
    # warnings about objects those threads still reach — not leaks of ours. Everything is written, committed
    # and closed by now, so leave without the teardown.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)
sys.exit(code)
