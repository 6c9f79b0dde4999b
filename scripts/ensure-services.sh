#!/usr/bin/env bash
# PostgreSQL and Redis for the team-scale tests (Postgres store, BullMQ workers, shared rate limits). CI sets
# CI=true, where those suites must run: start the services when they are not answering, installing Debian's
# packages first when they are missing and we are allowed to (root with apt-get). Elsewhere the suites skip
# with one line when a service is away, so this script is only called from .ci/run.
set -euo pipefail

as_root() { [ "$(id -u)" = "0" ]; }
apt_install() {
  as_root && command -v apt-get >/dev/null 2>&1 || { echo "ensure-services: cannot install $* (not root with apt-get)" >&2; return 1; }
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq && apt-get install -y -qq "$@" >/dev/null
}

# PostgreSQL at 127.0.0.1:5432 with trust auth for local connections (user postgres).
if ! pg_isready -q -h 127.0.0.1 -p 5432 2>/dev/null; then
  command -v pg_ctlcluster >/dev/null 2>&1 || apt_install postgresql
  version=$(ls /etc/postgresql | sort -V | tail -1)
  pg_ctlcluster --skip-systemctl-redirect "$version" main start || true
  for _ in $(seq 1 30); do pg_isready -q -h 127.0.0.1 -p 5432 && break; sleep 1; done
fi
pg_isready -h 127.0.0.1 -p 5432

# Redis at 127.0.0.1:6379, nothing kept on disk.
if ! redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1; then
  command -v redis-server >/dev/null 2>&1 || apt_install redis-server
  redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save '' --appendonly no
  for _ in $(seq 1 30); do redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1 && break; sleep 1; done
fi
echo "redis: $(redis-cli -h 127.0.0.1 -p 6379 ping)"
