#!/usr/bin/env bash
# capture-real.sh DIR [OUT] — record reference facts from a real kube-apiserver
# started with `realserver.sh start DIR` into OUT (default e2e/testdata/real):
#
#   version.json                      GET /version
#   api-resources-wide.txt            kubectl api-resources -o wide
#   discovery/api.json, api_v1.json, apis.json, apis_<group>_<version>.json
#                                     legacy (unaggregated) discovery documents
#   discovery/aggregated_api.json, aggregated_apis.json
#                                     aggregated discovery (apidiscovery.k8s.io/v2)
#   openapi/v3.json                   GET /openapi/v3 (the index)
#   openapi/v3_api_v1.json[.gz]       GET /openapi/v3/api/v1 (gzipped when > 1 MB)
#   headers.txt                       status and Content-Type of every request above
#
# Documents are stored byte for byte as served to curl, which the server
# pretty-prints (other user agents get compact JSON with the same content).
# Only 127.0.0.1 is contacted.
set -euo pipefail

E2E_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
[[ $# -ge 1 ]] || { echo "usage: $0 DIR [OUT]" >&2; exit 2; }
# shellcheck disable=SC1091
source "$1/env"
OUT="${2:-$E2E_DIR/testdata/real}"
AGG='application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList'

mkdir -p "$OUT/discovery" "$OUT/openapi"
: >"$OUT/headers.txt"

# fetch PATH FILE [ACCEPT]
fetch() {
	local path=$1 file=$2 accept=${3:-application/json} hdr
	hdr=$(mktemp)
	curl -sS --fail --max-time 30 --cacert "$REALSERVER_CA" \
		-H "Authorization: Bearer $REALSERVER_TOKEN" -H "Accept: $accept" \
		-D "$hdr" -o "$file" "$REALSERVER_URL$path"
	{
		printf '%s  Accept: %s\n' "$path" "$accept"
		tr -d '\r' <"$hdr" | grep -iE '^(HTTP/|content-type:|content-encoding:|etag:|cache-control:|vary:)' | sed 's/^/    /'
	} >>"$OUT/headers.txt"
	rm -f "$hdr"
}

fetch /version "$OUT/version.json"
kubectl --kubeconfig "$REALSERVER_KUBECONFIG" api-resources -o wide >"$OUT/api-resources-wide.txt"

fetch /api "$OUT/discovery/api.json"
fetch /apis "$OUT/discovery/apis.json"
for v in $(jq -r '.versions[]' "$OUT/discovery/api.json"); do
	fetch "/api/$v" "$OUT/discovery/api_$v.json"
done
for gv in $(jq -r '.groups[].versions[].groupVersion' "$OUT/discovery/apis.json"); do
	fetch "/apis/$gv" "$OUT/discovery/apis_${gv//\//_}.json"
done
fetch /api "$OUT/discovery/aggregated_api.json" "$AGG"
fetch /apis "$OUT/discovery/aggregated_apis.json" "$AGG"

fetch /openapi/v3 "$OUT/openapi/v3.json"
rm -f "$OUT/openapi/v3_api_v1.json" "$OUT/openapi/v3_api_v1.json.gz"
fetch /openapi/v3/api/v1 "$OUT/openapi/v3_api_v1.json"
size=$(stat -c %s "$OUT/openapi/v3_api_v1.json")
if ((size > 5 * 1024 * 1024)); then
	echo "openapi/v3/api/v1 is $size bytes (> 5 MB); not kept" >&2
	rm -f "$OUT/openapi/v3_api_v1.json"
elif ((size > 1024 * 1024)); then
	gzip -9n "$OUT/openapi/v3_api_v1.json"
fi
echo "captured into $OUT" >&2
