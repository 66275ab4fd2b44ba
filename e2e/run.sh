#!/usr/bin/env bash
# run.sh — run the e2e suite (the Go tests of this module) against the
# target chosen by E2E_TARGET:
#
#   real (default)  build (cached) and start kube-apiserver + etcd on
#                   127.0.0.1 with realserver.sh (and, for the cluster
#                   package, kube-controller-manager + kube-scheduler),
#                   run, and always stop them
#   fake            kubecache's fake API server, in each test process
#   kubeconfig      the cluster of $KUBECONFIG (see README.md)
#
# Tunables: E2E_RUN (go test -run pattern), E2E_RACE=0 (no race detector),
# E2E_TIMEOUT (go test -timeout, default 10m), E2E_CONTROLPLANE=0 (no
# control plane: the cluster package compares nothing). Packages run one at
# a time: they share the server, and some restart or compact it. On the
# real target the cluster package runs last, with a kube-controller-manager
# and a kube-scheduler built (cached) and started for it alone (their
# controllers would write into every other package's namespaces).
set -euo pipefail

E2E_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$E2E_DIR"
export E2E_TARGET="${E2E_TARGET:-real}"
begin=$SECONDS

flags=(-p 1 -count=1 -timeout "${E2E_TIMEOUT:-10m}")
[[ ${E2E_RACE:-1} == 0 ]] || flags+=(-race)
[[ -z ${E2E_RUN:-} ]] || flags+=(-run "$E2E_RUN")

case $E2E_TARGET in
real)
	./realserver.sh build
	dir=$(mktemp -d "${TMPDIR:-/tmp}/kubecache-e2e-real.XXXXXX")
	stop() {
		local rc=$?
		# Keep the servers' logs when something failed.
		if ((rc != 0)); then
			echo "e2e: failed; the servers' logs kept in $dir" >&2
			REALSERVER_KEEP_LOGS=1 ./realserver.sh stop "$dir" || true
		else
			./realserver.sh stop "$dir" || true
		fi
		exit "$rc"
	}
	trap stop EXIT
	trap 'exit 130' INT TERM
	# The alpha ShardedListAndWatch gate (shardSelector) is on, for the
	# sharded informer tests; nothing else depends on it.
	REALSERVER_APISERVER_ARGS="--feature-gates=ShardedListAndWatch=true ${REALSERVER_APISERVER_ARGS:-}" \
		./realserver.sh start "$dir" >/dev/null
	export E2E_REALSERVER_DIR="$dir"
	;;
fake) ;;
kubeconfig)
	[[ -n ${KUBECONFIG:-} ]] || { echo "e2e: E2E_TARGET=kubeconfig needs KUBECONFIG" >&2; exit 2; }
	;;
*)
	echo "e2e: E2E_TARGET=$E2E_TARGET: want real, fake or kubeconfig" >&2
	exit 2
	;;
esac

echo "== e2e: target $E2E_TARGET: go vet, then go test ${flags[*]} ./..."
go vet ./...
if [[ $E2E_TARGET == real && ${E2E_CONTROLPLANE:-1} == 1 ]]; then
	cluster_pkg=github.com/kubecache/kubecache/e2e/cluster
	mapfile -t pkgs < <(go list ./... | grep -vx "$cluster_pkg")
	go test "${flags[@]}" "${pkgs[@]}"
	./realserver.sh build-controlplane
	./realserver.sh start-controlplane "$dir"
	go test "${flags[@]}" "$cluster_pkg"
	./realserver.sh stop-controlplane "$dir"
else
	go test "${flags[@]}" ./...
fi
echo "== e2e: target $E2E_TARGET passed in $((SECONDS - begin))s"
