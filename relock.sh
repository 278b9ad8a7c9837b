#!/usr/bin/env bash
# Re-locks the install after a pin changed in requirements*.txt (the human-edited inputs):
#   bash relock.sh
# writes requirements-test.lock (dashboard + extras + competitors, one resolution), then
# requirements.lock (the dashboard alone) and requirements-dev.lock (dashboard + ruff), both held to
# the test lock's versions, so the tests run exactly what the dashboard installs. Every line carries
# sha256 hashes. pip-tools runs from a throwaway venv, never the project's .venv. Pins already in a
# lock are kept; to move a transitive dependency, delete its line (or the lock) and run this again.
# requirements-judges.lock is bench/judges.py's own resolution (its venv only), held to nothing of the project's.
set -euo pipefail
cd "$(dirname "$0")"
tools=$(mktemp -d)
trap 'rm -rf "$tools"' EXIT
python3 -m venv "$tools"
"$tools/bin/pip" install -q pip==26.3 pip-tools==7.6.2
export CUSTOM_COMPILE_COMMAND="bash relock.sh"
compile() {
    "$tools/bin/pip-compile" -q --generate-hashes --allow-unsafe --strip-extras \
        --no-emit-index-url --no-emit-find-links --no-emit-trusted-host "$@"
}
# torch==2.13.0+cpu exists only as the file in /opt/wheels (pip's find-links here).
compile --find-links /opt/wheels -o requirements-test.lock \
    requirements.txt requirements-extras.txt requirements-competitors.txt
compile -c requirements-test.lock -o requirements.lock requirements.txt
compile -c requirements-test.lock -o requirements-dev.lock requirements-dev.txt
# The independent judges of bench/judges.py (SDMetrics, anonymeter): a resolution of their own, never held to the
# project's versions (they need pandas<3 and numpy<1.27), installed only into the venv that bench creates.
compile -o requirements-judges.lock requirements-judges.txt
