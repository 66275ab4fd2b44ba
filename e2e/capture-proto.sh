#!/usr/bin/env bash
# capture-proto.sh DIR [OUT] — record protobuf answers of a real
# kube-apiserver started with `realserver.sh start DIR` into OUT (default
# e2e/testdata/real/protobuf): for each request, NAME.pb is the body asked
# with a protobuf Accept and NAME.json the same request asked in JSON
# (compact: the User-Agent is not curl's). Watches are NAME.watch.pb (the
# length-prefixed frames) and NAME.watch.json (one event per line).
# headers.txt lists status, Content-Type and Content-Encoding of each.
# kubeproto's spec tests read these files. Only 127.0.0.1 is contacted.
set -euo pipefail

E2E_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
[[ $# -ge 1 ]] || { echo "usage: $0 DIR [OUT]" >&2; exit 2; }
# shellcheck disable=SC1091
source "$1/env"
OUT="${2:-$E2E_DIR/testdata/real/protobuf}"
PB='application/vnd.kubernetes.protobuf'
mkdir -p "$OUT"
: >"$OUT/headers.txt"
kc() { kubectl --kubeconfig "$REALSERVER_KUBECONFIG" "$@"; }

# get PATH FILE ACCEPT [EXTRA CURL ARGS...]
get() {
	local path=$1 file=$2 accept=$3 hdr
	shift 3
	hdr=$(mktemp)
	curl -sS --max-time 30 --cacert "$REALSERVER_CA" -A kubecache-capture \
		-H "Authorization: Bearer $REALSERVER_TOKEN" -H "Accept: $accept" "$@" \
		-D "$hdr" -o "$file" "$REALSERVER_URL$path"
	{
		printf '%s  Accept: %s  %s\n' "$path" "$accept" "$*"
		tr -d '\r' <"$hdr" | grep -iE '^(HTTP/|content-type:|content-encoding:)' | sed 's/^/    /'
	} >>"$OUT/headers.txt"
	rm -f "$hdr"
}

# both NAME PATH: the same GET in protobuf and in JSON.
both() {
	get "$2" "$OUT/$1.pb" "$PB"
	get "$2" "$OUT/$1.json" application/json
}

kc create namespace proto --dry-run=client -o yaml | kc apply -f - >/dev/null
kc apply -f "$E2E_DIR/testdata/real/protobuf-objects.yaml" >/dev/null
kc wait --for=condition=Established crd/widgets.example.com >/dev/null

both namespace /api/v1/namespaces/proto
both configmap /api/v1/namespaces/proto/configmaps/full
both configmaps /api/v1/namespaces/proto/configmaps
both configmaps-page1 '/api/v1/namespaces/proto/configmaps?limit=1'
both secret /api/v1/namespaces/proto/secrets/full
both service /api/v1/namespaces/proto/services/web
both pod /api/v1/namespaces/proto/pods/full
both deployment /apis/apps/v1/namespaces/proto/deployments/web
both deployment-scale /apis/apps/v1/namespaces/proto/deployments/web/scale
both lease /apis/coordination.k8s.io/v1/namespaces/proto/leases/lock
both resourcequota /api/v1/namespaces/proto/resourcequotas/quota
both pdb /apis/policy/v1/namespaces/proto/poddisruptionbudgets/pdb
both cronjob /apis/batch/v1/namespaces/proto/cronjobs/nightly
both hpa /apis/autoscaling/v2/namespaces/proto/horizontalpodautoscalers/web
both ingress /apis/networking.k8s.io/v1/namespaces/proto/ingresses/web
both role /apis/rbac.authorization.k8s.io/v1/namespaces/proto/roles/reader
both event /api/v1/namespaces/proto/events/ev
both crd /apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.example.com
both notfound /api/v1/namespaces/proto/configmaps/missing
get /api/v1/namespaces/proto/configmaps/full "$OUT/configmap-metadata.pb" "$PB;as=PartialObjectMetadata;g=meta.k8s.io;v=v1"
get /api/v1/namespaces/proto/configmaps/full "$OUT/configmap-metadata.json" "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1"
get /api/v1/namespaces/proto/configmaps "$OUT/configmaps-metadata.pb" "$PB;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1"
get /api/v1/namespaces/proto/configmaps "$OUT/configmaps-metadata.json" "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1"
w='/api/v1/namespaces/proto/configmaps?watch=1&timeoutSeconds=1&allowWatchBookmarks=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan'
get "$w" "$OUT/configmaps.watch.pb" "$PB;stream=watch"
get "$w" "$OUT/configmaps.watch.json" application/json
# Compression: headers only, for a list past the threshold.
get /api/v1/namespaces/kube-system/configmaps /dev/null "$PB" -H 'Accept-Encoding: gzip'
get /api/v1/namespaces/proto/configmaps /dev/null 'application/yaml;q=0.5, application/vnd.kubernetes.protobuf;q=0.9'
get /api/v1/namespaces/proto/configmaps "$OUT/not-acceptable.json" 'text/html'
echo "captured into $OUT" >&2
