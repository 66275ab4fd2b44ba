#!/usr/bin/env bash
# realserver.sh — a real kube-apiserver + etcd on this machine, built from Go
# modules (no Docker, no network but the Go module proxy).
#
#   realserver.sh build       build e2e/bin/{kube-apiserver,etcd} if missing or stale
#   realserver.sh build-controlplane
#                             build e2e/bin/{kube-controller-manager,kube-scheduler}
#                             from the same module and flags as kube-apiserver
#   realserver.sh start DIR   start etcd + kube-apiserver on free 127.0.0.1 ports,
#                             wait for /readyz, write DIR/kubeconfig, DIR/pids and
#                             DIR/env; print the kubeconfig path on stdout
#   realserver.sh stop DIR    stop every server started in DIR, wait for them,
#                             remove their data
#   realserver.sh restart-apiserver DIR
#                             restart kube-apiserver on the same port, keeping
#                             etcd and its data (older resourceVersions become
#                             too old to watch from)
#   realserver.sh start-controlplane DIR
#                             start kube-controller-manager and kube-scheduler
#                             against DIR's kube-apiserver (admin token, no
#                             leader election, serving on free ports) and wait
#                             for their /healthz; stop DIR stops them too
#   realserver.sh stop-controlplane DIR
#                             stop only those two, keeping the servers
#
# Everything listens on 127.0.0.1 only, and every step is bounded in time.
# Tunables (environment):
#   REALSERVER_BUILD_TIMEOUT  seconds per binary build        (default 1800)
#   REALSERVER_START_TIMEOUT  seconds to wait for /readyz     (default 120)
#   REALSERVER_STOP_TIMEOUT   seconds before SIGKILL on stop  (default 20)
#   REALSERVER_KEEP_LOGS=1    stop keeps DIR/*.log
#   REALSERVER_APISERVER_ARGS extra kube-apiserver flags (word-split)
#   REALSERVER_KCM_ARGS       extra kube-controller-manager flags (word-split)
#   REALSERVER_SCHEDULER_ARGS extra kube-scheduler flags (word-split)
#   REALSERVER_BIN            where binaries live             (default e2e/bin)
#
# DIR/pids holds one "name pid" pair per line. DIR/env is shell-sourceable:
# REALSERVER_URL, REALSERVER_TOKEN, REALSERVER_CA, REALSERVER_KUBECONFIG,
# ETCD_URL.
set -euo pipefail

E2E_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
BIN_DIR="${REALSERVER_BIN:-$E2E_DIR/bin}"
[[ $BIN_DIR == /* ]] || BIN_DIR="$PWD/$BIN_DIR"
BUILD_TIMEOUT="${REALSERVER_BUILD_TIMEOUT:-1800}"
START_TIMEOUT="${REALSERVER_START_TIMEOUT:-120}"
STOP_TIMEOUT="${REALSERVER_STOP_TIMEOUT:-20}"

K8S_VERSION=v1.37.2
VERSION_PKG=k8s.io/component-base/version
# The same flags for every Kubernetes command, so that they share one build
# cache.
K8S_LDFLAGS="-X $VERSION_PKG.gitMajor=1 -X $VERSION_PKG.gitMinor=37 -X $VERSION_PKG.gitVersion=$K8S_VERSION -X $VERSION_PKG.gitTreeState=clean -X $VERSION_PKG.gitCommit="

log() { echo "realserver: $*" >&2; }
die() { log "error: $*"; exit 1; }

# ---------------------------------------------------------------- build

# build_one NAME MODULE_DIR PACKAGE LDFLAGS
build_one() {
	local name=$1 moddir=$2 pkg=$3 ldflags=$4
	local out="$BIN_DIR/$name" stamp="$BIN_DIR/$name.stamp" want
	want=$(
		{
			cat "$moddir/go.mod" "$moddir/go.sum" "$moddir/tools.go"
			go version
			go env GOOS GOARCH
			echo "CGO_ENABLED=0 -trimpath $pkg $ldflags"
		} | sha256sum | cut -d' ' -f1
	)
	if [[ -x $out && -f $stamp && $(cat "$stamp") == "$want" ]]; then
		log "$name is up to date ($out)"
		return 0
	fi
	log "building $name from $pkg (timeout ${BUILD_TIMEOUT}s)..."
	local start=$SECONDS
	rm -f "$stamp"
	(
		cd "$moddir"
		CGO_ENABLED=0 timeout --kill-after=10 "$BUILD_TIMEOUT" \
			go build -trimpath -ldflags "$ldflags" -o "$out.tmp" "$pkg"
	) || {
		rm -f "$out.tmp"
		die "building $name failed"
	}
	mv -f "$out.tmp" "$out"
	echo "$want" >"$stamp"
	log "built $name in $((SECONDS - start))s"
}

cmd_build() {
	command -v go >/dev/null || die "go is not on PATH"
	mkdir -p "$BIN_DIR"
	# One build at a time, also across concurrent callers (each build is
	# heavy: ~2.4 GB peak for kube-apiserver).
	exec 9>"$BIN_DIR/.build.lock"
	flock -w "$((2 * BUILD_TIMEOUT))" 9 || die "timed out waiting for $BIN_DIR/.build.lock"
	build_one etcd "$E2E_DIR/etcd" go.etcd.io/etcd/server/v3 ""
	build_one kube-apiserver "$E2E_DIR/apiserver" k8s.io/kubernetes/cmd/kube-apiserver "$K8S_LDFLAGS"
	exec 9>&-
}

# cmd_build_controlplane: kube-controller-manager and kube-scheduler, from
# the apiserver module (its tools.go imports both) with kube-apiserver's
# flags, so the three share one Go build cache.
cmd_build_controlplane() {
	command -v go >/dev/null || die "go is not on PATH"
	mkdir -p "$BIN_DIR"
	exec 9>"$BIN_DIR/.build.lock"
	flock -w "$((2 * BUILD_TIMEOUT))" 9 || die "timed out waiting for $BIN_DIR/.build.lock"
	local cmd
	for cmd in kube-controller-manager kube-scheduler; do
		build_one "$cmd" "$E2E_DIR/apiserver" "k8s.io/kubernetes/cmd/$cmd" "$K8S_LDFLAGS"
	done
	exec 9>&-
}

# ---------------------------------------------------------------- start

declare -a USED_PORTS=()

# free_port sets PORT to a loopback TCP port nobody listens on, chosen below
# the kernel's ephemeral range so outgoing connections cannot take it meanwhile.
free_port() {
	local p i u taken
	for ((i = 0; i < 200; i++)); do
		p=$((20000 + RANDOM % 12000))
		taken=0
		for u in "${USED_PORTS[@]}"; do [[ $u == "$p" ]] && taken=1; done
		((taken)) && continue
		if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
			USED_PORTS+=("$p")
			PORT=$p
			return 0
		fi
	done
	die "no free port found"
}

alive() { kill -0 "$1" 2>/dev/null; }

# gen_pki DIR: a CA, a serving certificate for 127.0.0.1/localhost signed by
# it, a service-account key pair and an admin token in system:masters.
gen_pki() {
	local pki=$1
	mkdir -p "$pki"
	chmod 700 "$pki"
	cat >"$pki/openssl.cnf" <<'EOF'
[req]
distinguished_name = dn
prompt = no
[dn]
CN = kubecache-e2e-ca
[ca]
basicConstraints = critical,CA:TRUE
keyUsage = critical,keyCertSign,cRLSign,digitalSignature
subjectKeyIdentifier = hash
[server]
basicConstraints = critical,CA:FALSE
keyUsage = critical,digitalSignature,keyEncipherment
extendedKeyUsage = serverAuth
subjectAltName = IP:127.0.0.1,DNS:localhost
authorityKeyIdentifier = keyid
EOF
	(
		set -e
		cd "$pki"
		openssl ecparam -name prime256v1 -genkey -noout -out ca.key 2>/dev/null
		openssl req -x509 -new -key ca.key -config openssl.cnf -extensions ca \
			-days 3650 -out ca.crt 2>/dev/null
		openssl ecparam -name prime256v1 -genkey -noout -out server.key 2>/dev/null
		openssl req -new -key server.key -subj /CN=kube-apiserver -out server.csr 2>/dev/null
		openssl x509 -req -in server.csr -CA ca.crt -CAkey ca.key -CAcreateserial \
			-days 3650 -extfile openssl.cnf -extensions server -out server.crt 2>/dev/null
		openssl genrsa -out sa.key 2048 2>/dev/null
		openssl rsa -in sa.key -pubout -out sa.pub 2>/dev/null
		local token
		token=$(openssl rand -hex 32)
		echo "$token" >token
		echo "$token,kubecache-admin,kubecache-admin,\"system:masters\"" >tokens.csv
	) || die "generating certificates and keys with openssl failed"
}

write_kubeconfig() {
	local file=$1 url=$2 ca=$3 token=$4
	cat >"$file" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: kubecache-e2e
  cluster:
    server: $url
    certificate-authority-data: $(base64 -w0 <"$ca")
users:
- name: kubecache-admin
  user:
    token: $token
contexts:
- name: kubecache-e2e
  context:
    cluster: kubecache-e2e
    user: kubecache-admin
current-context: kubecache-e2e
EOF
	chmod 600 "$file"
}

# early_exit NAME LOG: report a server that exited during start; fails with 2
# when it lost a port race (worth another attempt), else 1.
early_exit() {
	log "$1 exited during start; see $2:"
	tail -5 "$2" >&2
	if grep -q 'address already in use' "$2"; then return 2; fi
	return 1
}

# start_once DIR: one attempt with fresh ports. Returns 2 when a server lost a
# port race, 1 on other failures.
start_once() {
	local dir=$1 pki=$1/pki
	local etcd_port peer_port api_port
	free_port; etcd_port=$PORT
	free_port; peer_port=$PORT
	free_port; api_port=$PORT
	local etcd_url=http://127.0.0.1:$etcd_port
	local api_url=https://127.0.0.1:$api_port

	rm -rf "$dir/etcd-data"
	mkdir -p "$dir/etcd-data" "$dir/apiserver-certs"
	chmod 700 "$dir/etcd-data"

	setsid "$BIN_DIR/etcd" \
		--name=e2e \
		--data-dir="$dir/etcd-data" \
		--listen-client-urls="$etcd_url" \
		--advertise-client-urls="$etcd_url" \
		--listen-peer-urls="http://127.0.0.1:$peer_port" \
		--initial-advertise-peer-urls="http://127.0.0.1:$peer_port" \
		--initial-cluster="e2e=http://127.0.0.1:$peer_port" \
		--initial-cluster-state=new \
		--unsafe-no-fsync \
		--log-level=warn \
		</dev/null >"$dir/etcd.log" 2>&1 &
	local etcd_pid=$!
	echo "etcd $etcd_pid" >"$dir/pids"

	local deadline=$((SECONDS + 30))
	until curl -sf --max-time 2 "$etcd_url/health" 2>/dev/null | grep -q '"health":"true"'; do
		alive "$etcd_pid" || { early_exit etcd "$dir/etcd.log"; return; }
		((SECONDS < deadline)) || { log "etcd not healthy after 30s"; return 1; }
		sleep 0.2
	done

	# The command line is kept in DIR/apiserver.args (NUL-separated) so that
	# restart-apiserver can run the same server again on the same port.
	# shellcheck disable=SC2086 # REALSERVER_APISERVER_ARGS is meant to be word-split
	local -a api_cmd=(
		"$BIN_DIR/kube-apiserver"
		--etcd-servers="$etcd_url"
		--bind-address=127.0.0.1
		--advertise-address=127.0.0.1
		--secure-port="$api_port"
		--cert-dir="$dir/apiserver-certs"
		--tls-cert-file="$pki/server.crt"
		--tls-private-key-file="$pki/server.key"
		--token-auth-file="$pki/tokens.csv"
		--authorization-mode=RBAC
		--service-account-issuer=https://kubernetes.default.svc.cluster.local
		--service-account-key-file="$pki/sa.pub"
		--service-account-signing-key-file="$pki/sa.key"
		--service-cluster-ip-range=10.96.0.0/16
		--endpoint-reconciler-type=none
		--disable-admission-plugins=ServiceAccount
		${REALSERVER_APISERVER_ARGS:-}
	)
	printf '%s\0' "${api_cmd[@]}" >"$dir/apiserver.args"
	setsid "${api_cmd[@]}" </dev/null >"$dir/kube-apiserver.log" 2>&1 &
	local api_pid=$!
	echo "kube-apiserver $api_pid" >>"$dir/pids"

	local token
	token=$(cat "$pki/token")
	deadline=$((SECONDS + START_TIMEOUT))
	until [[ $(curl -s --max-time 2 --cacert "$pki/ca.crt" -H "Authorization: Bearer $token" \
		-o /dev/null -w '%{http_code}' "$api_url/readyz" 2>/dev/null) == 200 ]]; do
		alive "$api_pid" || { early_exit kube-apiserver "$dir/kube-apiserver.log"; return; }
		alive "$etcd_pid" || { log "etcd died; see $dir/etcd.log"; return 1; }
		((SECONDS < deadline)) || { log "kube-apiserver not ready after ${START_TIMEOUT}s; see $dir/kube-apiserver.log"; return 1; }
		sleep 0.2
	done

	write_kubeconfig "$dir/kubeconfig" "$api_url" "$pki/ca.crt" "$token"
	cat >"$dir/env" <<EOF
REALSERVER_URL=$api_url
REALSERVER_TOKEN=$token
REALSERVER_CA=$pki/ca.crt
REALSERVER_KUBECONFIG=$dir/kubeconfig
ETCD_URL=$etcd_url
EOF
	chmod 600 "$dir/env"
}

cmd_start() {
	[[ $# -eq 1 && -n $1 ]] || die "usage: $0 start DIR"
	mkdir -p "$1"
	local dir
	dir=$(cd "$1" && pwd)
	if [[ -f $dir/pids ]]; then
		local name pid
		while read -r name pid; do
			alive "$pid" && die "$dir already runs $name (pid $pid); stop it first"
		done <"$dir/pids"
		stop_dir "$dir"
	fi
	[[ -x $BIN_DIR/etcd && -x $BIN_DIR/kube-apiserver ]] || cmd_build
	local begin=$SECONDS attempt rc
	gen_pki "$dir/pki"
	for attempt in 1 2 3; do
		rc=0
		start_once "$dir" || rc=$?
		if ((rc == 0)); then
			log "ready in $((SECONDS - begin))s: $(grep REALSERVER_URL "$dir/env" | cut -d= -f2) (etcd $(grep ETCD_URL "$dir/env" | cut -d= -f2))"
			echo "$dir/kubeconfig"
			return 0
		fi
		kill_pids "$dir"
		((rc == 2 && attempt < 3)) || break
		log "port taken meanwhile; retrying with new ports"
	done
	REALSERVER_KEEP_LOGS=1 stop_dir "$dir"
	die "start failed; logs kept in $dir"
}

# ---------------------------------------------------------------- restart

# cmd_restart_apiserver DIR: stop kube-apiserver (SIGTERM, as a rolling
# restart does), start it again with the same command line on the same port
# and wait for /readyz. etcd and its data stay, so every watch breaks and
# every older resourceVersion becomes too old to watch from.
cmd_restart_apiserver() {
	[[ $# -eq 1 && -n $1 ]] || die "usage: $0 restart-apiserver DIR"
	local dir
	dir=$(cd "$1" && pwd) || die "$1 does not exist"
	[[ -f $dir/pids && -f $dir/apiserver.args && -f $dir/env ]] || die "$dir has no running servers (start it first)"
	local name pid etcd_pid="" api_pid=""
	while read -r name pid; do
		case $name in
		etcd) etcd_pid=$pid ;;
		kube-apiserver) api_pid=$pid ;;
		esac
	done <"$dir/pids"
	is_ours "$etcd_pid" etcd || die "etcd of $dir is not running"
	if [[ -n $api_pid ]] && is_ours "$api_pid" kube-apiserver; then
		kill -TERM "$api_pid" 2>/dev/null || true
		local deadline=$((SECONDS + STOP_TIMEOUT))
		while alive "$api_pid" && ((SECONDS < deadline)); do sleep 0.1; done
		if alive "$api_pid"; then
			kill -KILL "$api_pid" 2>/dev/null || true
			while alive "$api_pid"; do sleep 0.1; done
		fi
	fi
	local -a api_cmd=()
	mapfile -d '' api_cmd <"$dir/apiserver.args"
	cp "$dir/pids" "$dir/pids.old"
	local begin=$SECONDS attempt
	for attempt in 1 2 3 4 5; do
		setsid "${api_cmd[@]}" </dev/null >>"$dir/kube-apiserver.log" 2>&1 &
		api_pid=$!
		{
			echo "etcd $etcd_pid"
			echo "kube-apiserver $api_pid"
			# A control plane started against the old process stays
			# listed; its clients reconnect to the new one.
			grep -E '^(kube-controller-manager|kube-scheduler) ' "$dir/pids.old" || true
		} >"$dir/pids"
		if wait_ready "$dir" "$api_pid" "$etcd_pid"; then
			rm -f "$dir/pids.old"
			log "kube-apiserver restarted in $((SECONDS - begin))s"
			return 0
		fi
		# The old listener's port may linger for a moment; try again.
		alive "$api_pid" && die "kube-apiserver not ready after ${START_TIMEOUT}s; see $dir/kube-apiserver.log"
		grep -q 'address already in use' "$dir/kube-apiserver.log" || die "kube-apiserver exited on restart; see $dir/kube-apiserver.log"
		sleep 1
	done
	die "kube-apiserver could not take its port back; see $dir/kube-apiserver.log"
}

# wait_ready DIR API_PID ETCD_PID: wait until /readyz answers 200; fails
# when a server exits or after START_TIMEOUT.
wait_ready() {
	local dir=$1 api_pid=$2 etcd_pid=$3
	# shellcheck disable=SC1091
	local url token ca
	url=$(grep '^REALSERVER_URL=' "$dir/env" | cut -d= -f2-)
	token=$(grep '^REALSERVER_TOKEN=' "$dir/env" | cut -d= -f2-)
	ca=$(grep '^REALSERVER_CA=' "$dir/env" | cut -d= -f2-)
	local deadline=$((SECONDS + START_TIMEOUT))
	until [[ $(curl -s --max-time 2 --cacert "$ca" -H "Authorization: Bearer $token" \
		-o /dev/null -w '%{http_code}' "$url/readyz" 2>/dev/null) == 200 ]]; do
		alive "$api_pid" || return 1
		alive "$etcd_pid" || { log "etcd died; see $dir/etcd.log"; return 1; }
		((SECONDS < deadline)) || return 1
		sleep 0.2
	done
}

# ---------------------------------------------------------------- control plane

# wait_healthz NAME PID PORT LOG: wait until https://127.0.0.1:PORT/healthz
# answers ok; fails with 2 when the process lost a port race, 1 when it
# exited otherwise or after START_TIMEOUT.
wait_healthz() {
	local name=$1 pid=$2 port=$3 logf=$4
	local deadline=$((SECONDS + START_TIMEOUT))
	# The serving certificate is self-signed (in the component's cert dir);
	# only the answer matters here.
	until [[ $(curl -sk --max-time 2 "https://127.0.0.1:$port/healthz" 2>/dev/null) == ok ]]; do
		alive "$pid" || { early_exit "$name" "$logf"; return; }
		((SECONDS < deadline)) || { log "$name not healthy after ${START_TIMEOUT}s; see $logf"; return 1; }
		sleep 0.2
	done
}

# start_controlplane_once DIR: start both components on fresh ports and wait
# for them. Returns 2 when one lost a port race, 1 on other failures.
start_controlplane_once() {
	local dir=$1 pki=$1/pki kc=$1/kubeconfig
	local kcm_port sched_port
	free_port; kcm_port=$PORT
	free_port; sched_port=$PORT
	mkdir -p "$dir/kcm-certs" "$dir/scheduler-certs"
	# Every controller that is on by default, with the admin's credentials
	# (no per-controller service accounts), signing service-account tokens
	# with the key the apiserver verifies and publishing its CA as
	# kube-root-ca.crt.
	# shellcheck disable=SC2086 # REALSERVER_KCM_ARGS is meant to be word-split
	setsid "$BIN_DIR/kube-controller-manager" \
		--kubeconfig="$kc" \
		--authentication-kubeconfig="$kc" \
		--authorization-kubeconfig="$kc" \
		--bind-address=127.0.0.1 \
		--secure-port="$kcm_port" \
		--cert-dir="$dir/kcm-certs" \
		--leader-elect=false \
		--use-service-account-credentials=false \
		--service-account-private-key-file="$pki/sa.key" \
		--root-ca-file="$pki/ca.crt" \
		--cluster-signing-cert-file="$pki/ca.crt" \
		--cluster-signing-key-file="$pki/ca.key" \
		--controllers='*' \
		${REALSERVER_KCM_ARGS:-} \
		</dev/null >"$dir/kube-controller-manager.log" 2>&1 &
	local kcm_pid=$!
	echo "kube-controller-manager $kcm_pid" >>"$dir/pids"
	# shellcheck disable=SC2086 # REALSERVER_SCHEDULER_ARGS is meant to be word-split
	setsid "$BIN_DIR/kube-scheduler" \
		--kubeconfig="$kc" \
		--authentication-kubeconfig="$kc" \
		--authorization-kubeconfig="$kc" \
		--bind-address=127.0.0.1 \
		--secure-port="$sched_port" \
		--cert-dir="$dir/scheduler-certs" \
		--leader-elect=false \
		${REALSERVER_SCHEDULER_ARGS:-} \
		</dev/null >"$dir/kube-scheduler.log" 2>&1 &
	local sched_pid=$!
	echo "kube-scheduler $sched_pid" >>"$dir/pids"
	wait_healthz kube-controller-manager "$kcm_pid" "$kcm_port" "$dir/kube-controller-manager.log" || return
	wait_healthz kube-scheduler "$sched_pid" "$sched_port" "$dir/kube-scheduler.log" || return
	{
		echo "KCM_URL=https://127.0.0.1:$kcm_port"
		echo "SCHEDULER_URL=https://127.0.0.1:$sched_port"
	} >>"$dir/env"
}

# controlplane_pids DIR: the listed control-plane processes still running.
controlplane_pids() {
	local name pid
	[[ -f $1/pids ]] || return 0
	while read -r name pid; do
		case $name in
		kube-controller-manager | kube-scheduler) is_ours "$pid" "$name" && echo "$pid" ;;
		esac
	done <"$1/pids"
	return 0
}

cmd_start_controlplane() {
	[[ $# -eq 1 && -n $1 ]] || die "usage: $0 start-controlplane DIR"
	local dir
	dir=$(cd "$1" && pwd) || die "$1 does not exist"
	[[ -f $dir/env && -f $dir/kubeconfig && -f $dir/pids ]] || die "$dir has no running servers (start it first)"
	[[ -z $(controlplane_pids "$dir") ]] || die "$dir already runs a control plane; stop-controlplane it first"
	[[ -x $BIN_DIR/kube-controller-manager && -x $BIN_DIR/kube-scheduler ]] || cmd_build_controlplane
	local begin=$SECONDS attempt rc
	for attempt in 1 2 3; do
		rc=0
		start_controlplane_once "$dir" || rc=$?
		if ((rc == 0)); then
			log "kube-controller-manager and kube-scheduler healthy in $((SECONDS - begin))s"
			return 0
		fi
		stop_controlplane "$dir"
		((rc == 2 && attempt < 3)) || break
		log "port taken meanwhile; retrying with new ports"
	done
	die "starting the control plane failed; logs kept in $dir"
}

# stop_controlplane DIR: stop the two components (SIGTERM, then SIGKILL
# after STOP_TIMEOUT) and drop them from DIR/pids and DIR/env.
stop_controlplane() {
	local dir=$1 pid
	for pid in $(controlplane_pids "$dir"); do
		stop_pid "$pid"
	done
	if [[ -f $dir/pids ]]; then
		grep -vE '^(kube-controller-manager|kube-scheduler) ' "$dir/pids" >"$dir/pids.tmp" || true
		mv -f "$dir/pids.tmp" "$dir/pids"
	fi
	if [[ -f $dir/env ]]; then
		grep -vE '^(KCM_URL|SCHEDULER_URL)=' "$dir/env" >"$dir/env.tmp" || true
		chmod 600 "$dir/env.tmp"
		mv -f "$dir/env.tmp" "$dir/env"
	fi
	rm -rf "$dir/kcm-certs" "$dir/scheduler-certs"
}

cmd_stop_controlplane() {
	[[ $# -eq 1 && -n $1 ]] || die "usage: $0 stop-controlplane DIR"
	[[ -d $1 ]] || { log "$1 does not exist; nothing to stop"; return 0; }
	local dir
	dir=$(cd "$1" && pwd)
	stop_controlplane "$dir"
	[[ ${REALSERVER_KEEP_LOGS:-} == 1 ]] || rm -f "$dir/kube-controller-manager.log" "$dir/kube-scheduler.log"
	log "control plane stopped"
}

# ---------------------------------------------------------------- stop

# is_ours PID NAME: the process still runs our binary (not a recycled pid).
is_ours() {
	local pid=$1 name=$2
	alive "$pid" || return 1
	tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q "/$name "
}

kill_pids() {
	local dir=$1 name pid
	[[ -f $dir/pids ]] || return 0
	local -a pids=()
	# Stopped in the reverse of the listed order: the control plane, then
	# kube-apiserver, then etcd.
	while read -r name pid; do
		is_ours "$pid" "$name" && pids=("$pid" "${pids[@]}")
	done <"$dir/pids"
	for pid in "${pids[@]}"; do
		stop_pid "$pid"
	done
	rm -f "$dir/pids"
}

# stop_pid PID: SIGTERM, then SIGKILL after STOP_TIMEOUT.
stop_pid() {
	local pid=$1
	kill -TERM "$pid" 2>/dev/null || true
	local deadline=$((SECONDS + STOP_TIMEOUT))
	while alive "$pid" && ((SECONDS < deadline)); do sleep 0.1; done
	if alive "$pid"; then
		log "pid $pid ignored SIGTERM for ${STOP_TIMEOUT}s; sending SIGKILL"
		kill -KILL "$pid" 2>/dev/null || true
		deadline=$((SECONDS + 5))
		while alive "$pid" && ((SECONDS < deadline)); do sleep 0.1; done
	fi
}

# stop_dir removes only what start created, then DIR itself if it is empty.
stop_dir() {
	local dir=$1
	kill_pids "$dir"
	rm -rf "$dir/etcd-data" "$dir/apiserver-certs" "$dir/kcm-certs" "$dir/scheduler-certs" \
		"$dir/pki" "$dir/kubeconfig" "$dir/env" "$dir/apiserver.args" "$dir/pids.old"
	[[ ${REALSERVER_KEEP_LOGS:-} == 1 ]] ||
		rm -f "$dir/etcd.log" "$dir/kube-apiserver.log" "$dir/kube-controller-manager.log" "$dir/kube-scheduler.log"
	rmdir "$dir" 2>/dev/null || true
}

cmd_stop() {
	[[ $# -eq 1 && -n $1 ]] || die "usage: $0 stop DIR"
	[[ -d $1 ]] || { log "$1 does not exist; nothing to stop"; return 0; }
	local dir
	dir=$(cd "$1" && pwd)
	stop_dir "$dir"
	log "stopped"
}

# ---------------------------------------------------------------- main

case "${1:-}" in
build) shift; cmd_build "$@" ;;
build-controlplane) shift; cmd_build_controlplane "$@" ;;
start) shift; cmd_start "$@" ;;
stop) shift; cmd_stop "$@" ;;
restart-apiserver) shift; cmd_restart_apiserver "$@" ;;
start-controlplane) shift; cmd_start_controlplane "$@" ;;
stop-controlplane) shift; cmd_stop_controlplane "$@" ;;
*)
	sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0" >&2
	exit 2
	;;
esac
