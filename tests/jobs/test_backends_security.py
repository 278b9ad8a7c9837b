"""Cluster backends on a shared server (DESIGN §6): another account of the same machine can reach 127.0.0.1, so a
local cluster must accept only its owner. Tested as an attacker would: a second local account (root only, as CI
runs) connects to every address the local Dask cluster listens on — without TLS, with a key of its own, and with
TLS but no certificate — and tries to run code; none of it may run, let alone as the owner. Nothing may serve
HTTP (Dask's web dashboard and metrics pages). Ray cannot be limited to its owner (its servers listen on every
network address): the dashboard does not offer it and the command line says so before it starts."""

from __future__ import annotations

import asyncio
import http.client
import os
import ssl
import stat
from pathlib import Path

import pytest

from tests.accounts import readable_by, second_account
from tvs_core.jobs import backends

distributed = pytest.importorskip("distributed")
import psutil  # noqa: E402  (distributed's dependency)
from distributed import Client, get_client  # noqa: E402
from distributed.comm import connect  # noqa: E402
from distributed.security import Security  # noqa: E402

ATTACK_SECONDS = 5  # each connection attempt's timeout: Dask retries a refused handshake until then


def attack(addresses: list[str], scheduler: str, marker: str, security: Security | None = None) -> dict:
    """Everything an account that knows the cluster's addresses can try; run as the second account (or, as the
    control, as the owner with the cluster's own key). Returns what each attempt achieved, by name."""

    def no_certificate() -> ssl.SSLContext:  # TLS that trusts anything and shows no certificate of its own
        context = ssl.create_default_context()
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
        return context

    async def submit(address: str, with_security: Security | None) -> str:
        async with Client(address, security=with_security, asynchronous=True, timeout=ATTACK_SECONDS) as client:
            await client.submit(Path(marker).touch, pure=False)  # a file written by the cluster's account
            return f"ran as uid {await client.submit(os.getuid, pure=False)}"

    async def identity(address: str, **connection_args) -> str:
        comm = await connect(address, timeout=ATTACK_SECONDS, **connection_args)
        try:
            await comm.write({"op": "identity", "reply": True})
            return f"answered as {(await comm.read()).get('type')}"
        finally:
            await comm.close()

    async def attempt(coroutine) -> str:
        try:
            return await coroutine
        except Exception as exc:  # noqa: BLE001 — refused, whatever the form
            return f"refused ({type(exc).__name__})"

    async def everything() -> dict:
        if security is not None:  # the control: the owner, who holds the key
            attempts = {"owner's client": submit(scheduler, security)}
            attempts |= {f"owner at {a}": identity(a, **security.get_connection_args("client")) for a in addresses}
        else:
            attempts = {"client without TLS": submit(scheduler.replace("tls://", "tcp://"), None),
                        "client with a key of its own": submit(scheduler, Security.temporary())}
            for address in addresses:
                attempts[f"no TLS at {address}"] = identity(address.replace("tls://", "tcp://"))
                attempts[f"a key of its own at {address}"] = identity(
                    address, **Security.temporary().get_connection_args("client"))
                attempts[f"no certificate at {address}"] = identity(
                    address.replace("tcp://", "tls://"), ssl_context=no_certificate(), require_encryption=False)
        outcomes = await asyncio.gather(*(attempt(c) for c in attempts.values()))
        return dict(zip(attempts, outcomes, strict=True))

    return asyncio.run(everything())


def listening(process: psutil.Process) -> set[tuple[str, int]]:
    """The TCP (host, port) this process and its children listen on."""
    found = set()
    for each in [process, *process.children(recursive=True)]:
        try:
            found |= {(c.laddr.ip, c.laddr.port) for c in each.net_connections(kind="tcp")
                      if c.status == psutil.CONN_LISTEN}
        except psutil.NoSuchProcess:
            continue
    return found


def answers_http(port: int) -> bool:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    try:
        connection.request("GET", "/health")
        connection.getresponse()
        return True
    except (OSError, http.client.HTTPException):
        return False
    finally:
        connection.close()


@pytest.mark.slow
def test_the_local_dask_cluster_runs_no_code_for_another_account(tmp_path):
    with second_account() as other:
        marker = tmp_path / "ran"  # written by a submitted function, as the cluster's account
        with backends.backend_context("dask", n_jobs=1):
            client = get_client()
            scheduler = client.scheduler.address
            workers = client.scheduler_info()["workers"]
            addresses = [scheduler, *workers, *(w["nanny"] for w in workers.values())]
            ports = listening(psutil.Process())
            served = sorted(port for _, port in ports if answers_http(port))
            stolen = other.run(attack, addresses, scheduler, str(marker), timeout=120)
            control = attack(addresses, scheduler, str(tmp_path / "owner"), client.security)

        accepted = {name: outcome for name, outcome in stolen.items() if not outcome.startswith("refused")}
        assert not accepted, accepted
        assert not marker.exists(), "a function submitted by another account ran on the owner's cluster"
        assert not served, f"ports answering HTTP: {served}"
        # every listening socket is one of the cluster's TLS comms on 127.0.0.1: no dashboard, no metrics page
        assert all(a.startswith("tls://127.0.0.1:") for a in addresses), addresses
        assert ports == {("127.0.0.1", int(a.rsplit(":", 1)[1])) for a in addresses}, (ports, addresses)
        # the same attempts with the cluster's own key get through: the refusals above are the key's doing
        assert control["owner's client"] == f"ran as uid {os.getuid()}", control
        assert all(control[f"owner at {a}"].startswith("answered") for a in addresses), control
        assert (tmp_path / "owner").exists()


@pytest.mark.slow
def test_the_local_dask_cluster_keeps_its_scratch_files_private(tmp_path):
    """A worker's scratch folder is on its import path and holds what it spills: not under a /tmp folder any
    account may have made first, and unreadable by others."""
    with second_account() as other:
        with backends.backend_context("dask", n_jobs=1):
            client = get_client()
            folders = [*client.run(lambda dask_worker: dask_worker.local_directory).values(),
                       client.run_on_scheduler(lambda dask_scheduler: dask_scheduler.local_directory)]
            scratch = Path(folders[0]).parents[1]
            assert all(Path(folder).parents[1] == scratch for folder in folders), folders
            assert scratch.name.startswith("tvs-dask-") and stat.S_IMODE(scratch.stat().st_mode) == 0o700
            assert readable_by(other, scratch) == []
        assert not scratch.exists()  # removed with the cluster


def test_ray_is_not_offered_where_it_cannot_be_kept_to_its_owner():
    risk, warning = backends.risk, backends.RAY_RISK
    assert "ray" not in backends.OWNER_ONLY and {"loky", "dask"} <= set(backends.OWNER_ONLY)
    assert risk("ray") == warning and risk("ray", "ray://cluster:10001") == warning
    assert warning.count(". ") == 0 and warning.endswith(".")  # one plain sentence
    assert risk("loky") is None and risk("dask") is None and risk("dask", "tls://cluster:8786") is None
    assert "without encryption" in risk("dask", "tcp://cluster:8786")


@pytest.mark.parametrize("backend", ["ray", "loky"])
def test_the_command_line_warns_before_a_ray_cluster_starts(backend, tmp_path, monkeypatch, capsys):
    from tvs_core import cli
    from tvs_core.errors import TVSError
    from tvs_core.jobs import worker

    started = []

    def run_job(store, job_id, n_jobs=2, backend="loky", address=None, progress=None, **kwargs):
        started.append(backend)
        raise TVSError("stopped before any cluster starts")

    monkeypatch.setattr(worker, "run_job", run_job)
    accept = ["--accept-open-ports"] if backend == "ray" else []
    cli.main(["sweep", "--demo", "clinical", "--levels", "1", "--baselines", "none", "--backend", backend, *accept,
              "--workspace", str(tmp_path / "ws"), "--out", str(tmp_path / "out")])
    lines = capsys.readouterr().err.splitlines()
    assert started == [backend]
    if backend == "ray":
        assert backends.RAY_RISK in lines
    else:
        assert not any(line.startswith("Warning") for line in lines), lines


@pytest.mark.slow
def test_the_ray_token_is_the_owners_alone(tmp_path, monkeypatch):
    """Ray stays available from the command line: its token file is written 0600 in a folder of the owner's (Ray
    on its own writes ~/.ray/auth_token 0644, which another account copied and then connected with)."""
    pytest.importorskip("ray")
    monkeypatch.setenv("HOME", str(tmp_path))
    before = {name: os.environ.get(name) for name in ("RAY_AUTH_MODE", "RAY_AUTH_TOKEN_PATH")}
    with second_account() as other:
        with backends.backend_context("ray", n_jobs=1):
            assert not (tmp_path / ".ray").exists(), "Ray wrote its token to ~/.ray (0644 there)"
            token = Path(os.environ["RAY_AUTH_TOKEN_PATH"])
            assert os.environ["RAY_AUTH_MODE"] == "token"
            assert stat.S_IMODE(token.stat().st_mode) == 0o600 and token.parent.name.startswith("tvs-ray-")
            assert stat.S_IMODE(token.parent.stat().st_mode) == 0o700
            assert readable_by(other, token.parent) == []
        assert not token.parent.exists()
        assert {name: os.environ.get(name) for name in before} == before  # only while the cluster runs

