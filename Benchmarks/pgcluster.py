#!/usr/bin/env python3
"""A throwaway PostgreSQL cluster for the benchmarks, with PostgreSQL's DEFAULT durability.

    python3 Benchmarks/pgcluster.py                        # prints the URL; stops on Ctrl-C or SIGTERM
    python3 Benchmarks/pgcluster.py --cpu 1 -- COMMAND …   # runs COMMAND with WALLET_ORDERS_BENCH_PG_URL set

From Python (report.py, serve.py):

    with pgcluster.start(cpu=1) as cluster:   # None when the server binaries are missing (a warning is printed)
        cluster.url("postgres")               # postgres://postgres:PASSWORD@127.0.0.1:PORT/postgres?sslmode=disable

Unlike the tests' cluster (Tests/WalletOrdersTestSupport/PostgresTestCluster.swift: fsync and
synchronous_commit off, since it is thrown away), this one keeps fsync, synchronous_commit and
full_page_writes on, as a production server has them, so a committed save has been flushed to the
WAL on disk: that is what the durable-save figures measure. Otherwise it is made the same way:
initdb in a temporary folder (as the unprivileged `postgres` user through runuser when root:
PostgreSQL refuses to run as root), listening on 127.0.0.1 (TCP, SCRAM passwords, no TLS) and on
a Unix socket in that folder, stopped and removed on exit. `--cpu N` pins the server (postmaster
and every backend) to core N with taskset. Binaries: WALLET_ORDERS_PG_BINDIR, then
/usr/lib/postgresql/*/bin (newest first), then PATH.
"""
import argparse
import atexit
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

PREFIX = "wallet-orders-bench-pg-"
SERVER_PROGRAMS = ("initdb", "pg_ctl", "postgres")


def find_binaries():
    """The folder holding initdb, pg_ctl and postgres, or None."""
    def has_server(folder):
        return all(os.access(os.path.join(folder, name), os.X_OK) for name in SERVER_PROGRAMS)

    chosen = os.environ.get("WALLET_ORDERS_PG_BINDIR")
    if chosen and has_server(chosen):
        return chosen
    try:
        versions = sorted((int(v) for v in os.listdir("/usr/lib/postgresql") if v.isdigit()), reverse=True)
    except OSError:
        versions = []
    for version in versions:
        folder = f"/usr/lib/postgresql/{version}/bin"
        if has_server(folder):
            return folder
    for folder in os.environ.get("PATH", "").split(os.pathsep):
        if folder and has_server(folder):
            return os.path.dirname(os.path.realpath(os.path.join(folder, "postgres")))
    return None


def warn_missing():
    sys.stderr.write(
        "\n*** WARNING: PostgreSQL's server binaries (initdb, pg_ctl, postgres) were not found in "
        "WALLET_ORDERS_PG_BINDIR, /usr/lib/postgresql/*/bin or PATH: every PostgreSQL figure is SKIPPED. "
        "Install the 'postgresql' package (.ci/setup does). ***\n\n")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Cluster:
    """A running cluster; `stop()` (or leaving the `with` block, or the process's exit) removes it."""

    def __init__(self, binaries, cpu=None):
        self.binaries = binaries
        self.as_postgres = os.geteuid() == 0
        self.cpu = cpu
        self.host = "127.0.0.1"
        self.password = secrets.token_hex(16)
        remove_abandoned(binaries, self.as_postgres)
        self.folder = tempfile.mkdtemp(prefix=PREFIX)
        self.data = os.path.join(self.folder, "data")
        self.log = os.path.join(self.folder, "server.log")
        self.stopped = False
        atexit.register(self.stop)
        with open(os.path.join(self.folder, "owner.pid"), "w") as f:
            f.write(f"{os.getpid()}\n")
        with open(os.path.join(self.folder, "pwfile"), "w") as f:
            f.write(self.password + "\n")
        if self.as_postgres:
            subprocess.run(["chown", "-R", "postgres:postgres", self.folder], check=True)
        # --no-sync only skips flushing initdb's own files (a crash during initdb is no concern
        # here); the running server's settings below are PostgreSQL's defaults.
        self._server("initdb", "-D", self.data, "-U", "postgres", f"--pwfile={self.folder}/pwfile",
                     "--auth-local=trust", "--auth-host=scram-sha-256", "-E", "UTF8", "--no-locale", "--no-sync")
        os.remove(os.path.join(self.folder, "pwfile"))
        error = ""
        for _ in range(5):
            self.port = free_port()
            with open(os.path.join(self.data, "postgresql.auto.conf"), "a") as conf:
                conf.write(
                    f"\nport = {self.port}\nlisten_addresses = '127.0.0.1'\nunix_socket_directories = '{self.folder}'\n"
                    # PostgreSQL's defaults, written out: the benchmarks measure durable commits.
                    "fsync = on\nsynchronous_commit = on\nfull_page_writes = on\n"
                    "log_min_messages = warning\n")
            started = self._server("pg_ctl", "-D", self.data, "-l", self.log, "-w", "-t", "60", "start", check=False)
            if started.returncode == 0:
                break
            error = started.stdout + started.stderr + self.server_log()
        else:
            self.stop()
            raise RuntimeError(f"pg_ctl start failed 5 times:\n{error}")
        settings = self.psql("SELECT current_setting('fsync'), current_setting('synchronous_commit'), "
                             "current_setting('full_page_writes'), current_setting('wal_sync_method'), version()")
        fsync, commit, full_pages, self.wal_sync_method, self.version = settings.split("|", 4)
        if (fsync, commit, full_pages) != ("on", "on", "on"):
            self.stop()
            raise RuntimeError(f"the cluster is not durable: fsync={fsync} synchronous_commit={commit} full_page_writes={full_pages}")

    def _server(self, program, *arguments, check=True):
        command = ([f"taskset", "-c", str(self.cpu)] if self.cpu is not None else []) + \
            (["runuser", "-u", "postgres", "--"] if self.as_postgres else []) + \
            [os.path.join(self.binaries, program)] + list(arguments)
        # stdin and the output of the server pg_ctl leaves running must not be our pipes.
        result = subprocess.run(command, cwd="/", stdin=subprocess.DEVNULL, capture_output=True, text=True)
        if check and result.returncode != 0:
            raise RuntimeError(f"{program} failed ({result.returncode}):\n{result.stdout}{result.stderr}")
        return result

    def server_log(self):
        try:
            with open(self.log) as f:
                return f.read()
        except OSError:
            return ""

    @property
    def psql_binary(self):
        beside = os.path.join(self.binaries, "psql")
        return beside if os.access(beside, os.X_OK) else (shutil.which("psql") or "psql")

    def psql(self, sql, database="postgres"):
        """Runs `sql` as the superuser over the Unix socket; returns the unaligned output."""
        result = subprocess.run(
            [self.psql_binary, "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-h", self.folder, "-p", str(self.port),
             "-U", "postgres", "-d", database, "-c", sql], capture_output=True, text=True)
        if result.returncode != 0:
            raise RuntimeError(f"psql failed: {result.stderr}")
        return result.stdout.strip()

    def create_database(self, name):
        self.psql(f"CREATE DATABASE {name} TEMPLATE template0")
        return name

    def url(self, database="postgres", password=True):
        """The TCP URL of `database`; without the password for `--store` (then PGPASSWORD carries it)."""
        secret = f":{self.password}" if password else ""
        return f"postgres://postgres{secret}@{self.host}:{self.port}/{database}?sslmode=disable"

    def environment(self):
        """What the benchmarks read: the URL (with its password) and psql's path."""
        return {"WALLET_ORDERS_BENCH_PG_URL": self.url(), "WALLET_ORDERS_BENCH_PG_PSQL": self.psql_binary}

    def pin(self, cpu):
        """Moves the running server (postmaster and every backend; new backends inherit it) to core `cpu`."""
        with open(os.path.join(self.data, "postmaster.pid")) as f:
            postmaster = f.readline().strip()
        children = subprocess.run(["ps", "-o", "pid=", "--ppid", postmaster], capture_output=True, text=True).stdout.split()
        for pid in [postmaster] + children:
            subprocess.run(["taskset", "-p", "-c", str(cpu), pid], capture_output=True)
        self.cpu = cpu

    def describe(self):
        return (f"PostgreSQL {self.version.split(' ')[1]} on 127.0.0.1:{self.port}, "
                f"fsync=on synchronous_commit=on full_page_writes=on wal_sync_method={self.wal_sync_method}"
                + (f", server pinned to core {self.cpu}" if self.cpu is not None else ""))

    def stop(self):
        if self.stopped:
            return
        self.stopped = True
        if os.path.isdir(self.data):
            self._server("pg_ctl", "-D", self.data, "-m", "immediate", "-w", "stop", check=False)
        shutil.rmtree(self.folder, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *_):
        self.stop()


def remove_abandoned(binaries, as_postgres):
    """Clusters left by benchmark runs that died without stopping theirs."""
    temporary = tempfile.gettempdir()
    for name in os.listdir(temporary):
        if not name.startswith(PREFIX):
            continue
        folder = os.path.join(temporary, name)
        try:
            with open(os.path.join(folder, "owner.pid")) as f:
                owner = int(f.read().strip())
            os.kill(owner, 0)
            continue  # its owner still runs
        except ProcessLookupError:
            pass
        except (OSError, ValueError):
            continue
        subprocess.run((["runuser", "-u", "postgres", "--"] if as_postgres else []) +
                       [os.path.join(binaries, "pg_ctl"), "-D", os.path.join(folder, "data"), "-m", "immediate", "stop"],
                       cwd="/", stdin=subprocess.DEVNULL, capture_output=True)
        shutil.rmtree(folder, ignore_errors=True)


def start(cpu=None):
    """A started cluster, or None (with a loud warning) when PostgreSQL's binaries are missing.

    SIGTERM and SIGHUP end the process through SystemExit, so `with` blocks and atexit stop the
    cluster then too.
    """
    binaries = find_binaries()
    if binaries is None:
        warn_missing()
        return None
    for number in (signal.SIGTERM, signal.SIGHUP):
        if signal.getsignal(number) in (signal.SIG_DFL, None):
            signal.signal(number, lambda signum, _: sys.exit(128 + signum))
    return Cluster(binaries, cpu=cpu)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cpu", type=int, default=None, help="pin the server to this core (taskset)")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="-- COMMAND to run with the cluster's environment")
    args = parser.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    cluster = start(cpu=args.cpu)
    if command:
        environment = dict(os.environ)
        if cluster is not None:
            print(cluster.describe(), file=sys.stderr)
            environment.update(cluster.environment())
        try:
            status = subprocess.call(command, env=environment)
        finally:
            if cluster is not None:
                cluster.stop()
        sys.exit(status)
    if cluster is None:
        sys.exit(1)
    print(cluster.describe(), file=sys.stderr)
    print(f"WALLET_ORDERS_BENCH_PG_URL={cluster.url()}")
    print(f"PGPASSWORD={cluster.password}")
    print(f"stopped with Ctrl-C or SIGTERM (folder {cluster.folder})", file=sys.stderr)
    sys.stdout.flush()
    signal.signal(signal.SIGINT, lambda *_: sys.exit(0))
    try:
        while True:
            signal.pause()
    finally:
        cluster.stop()


if __name__ == "__main__":
    main()
