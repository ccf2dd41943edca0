#!/usr/bin/env bash
# CI: installs what test/failover/failover.test.ts needs from Debian's packages (Patroni, etcd,
# HAProxy; PostgreSQL's server binaries with pg_rewind come with the postgresql package), so that
# the test runs in the PostgreSQL pass of `npm test` instead of skipping. The test starts everything
# itself on loopback ports 9600-9699 (ops/ha/start-ha.sh) and stops it at the end; nothing is started
# here. Installing the packages never starts their system services where no init system runs them;
# where one does (a CI image with systemd), the Debian services are stopped and disabled below, since
# the test needs their ports free and starts its own.
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive

missing=()
[ -x /usr/bin/patroni ] || missing+=(patroni)
[ -x /usr/bin/etcd ] || missing+=(etcd-server)
[ -x /usr/sbin/haproxy ] || missing+=(haproxy)
command -v curl >/dev/null || missing+=(curl) # ops/ha/start-ha.sh waits on Patroni's REST API with it
if [ "${#missing[@]}" -gt 0 ]; then
  if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
    echo "failover: cannot install ${missing[*]} (not root or no apt-get)" >&2
    exit 1
  fi
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  if command -v systemctl >/dev/null && [ -d /run/systemd/system ]; then
    systemctl disable --now etcd haproxy patroni >/dev/null 2>&1 || true
  fi
fi
for tool in /usr/bin/patroni /usr/bin/patronictl /usr/bin/etcd /usr/sbin/haproxy; do
  [ -x "$tool" ] || { echo "failover: $tool missing after install" >&2; exit 1; }
done
ls /usr/lib/postgresql/*/bin/pg_rewind >/dev/null || { echo "failover: pg_rewind missing" >&2; exit 1; }
echo "failover: $(patroni --version), $(etcd --version | head -n 1), $(haproxy -v | head -n 1)"
