package request

import (
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/kubecache/kubecache/fakeapiserver/internal/apistatus"
	"github.com/kubecache/kubecache/kubeproto"
)

// Protobuf bodies: every built-in kind is read in the Kubernetes protobuf
// encoding and converted to JSON at once, so the rest of a write sees the
// body as if it had been sent in JSON. Custom resources are served in
// JSON and YAML only.

// mediaTypesCustom is the 415 for a protobuf body sent to a custom
// resource. (A real kube-apiserver v1.37.2 fails such a request with a
// nil dereference and closes the stream; earlier releases gave this 415.)
const mediaTypesCustom = "the body of the request was in an unknown format - accepted media types include: application/json, application/yaml"

// ProtobufToJSON converts a protobuf request body to the JSON of the
// object it holds. kind is the kind the handler reads (ConfigMap, Scale,
// DeleteOptions), named in the errors the real server gives for a body
// it cannot read: 400 "the object provided is unrecognized" for a body
// that is not a protobuf envelope, 400 "<Kind> in version … cannot be
// handled as a <kind>" for an envelope whose object does not decode. An
// envelope naming a kind without a protobuf message comes back as that
// bare kind and apiVersion, for the caller's kind checks to refuse.
func ProtobufToJSON(data []byte, kind string, custom bool) ([]byte, error) {
	if custom {
		return nil, apistatus.UnsupportedMediaType(mediaTypesCustom)
	}
	env, err := kubeproto.ParseEnvelope(data)
	if err != nil {
		return nil, apistatus.BadRequest(fmt.Sprintf("the object provided is unrecognized (must be of type %s): %v (%s)", kind, err, summarize(data, 30)))
	}
	if !kubeproto.Known(env.APIVersion, env.Kind) {
		return Marshal(map[string]string{"kind": env.Kind, "apiVersion": env.APIVersion}), nil
	}
	out, err := kubeproto.DecodeMessage(env.APIVersion, env.Kind, env.Raw, true)
	if err != nil {
		_, version := splitGV(env.APIVersion)
		return nil, apistatus.BadRequest(fmt.Sprintf("%s in version %q cannot be handled as a %s: %v", env.Kind, version, kind, err))
	}
	return out, nil
}

// summarize shows the start of a body in an error, as the real server
// does: JSON as text, anything else in hex, cut at max bytes.
func summarize(data []byte, max int) string {
	switch {
	case len(data) == 0:
		return "<empty>"
	case data[0] == '{':
		if len(data) > max {
			return string(data[:max]) + " ..."
		}
		return string(data)
	case len(data) > max:
		return hex.EncodeToString(data[:max]) + " ..."
	}
	return hex.EncodeToString(data)
}

// IsProtobuf reports whether a media type (parameters allowed) is the
// Kubernetes protobuf encoding.
func IsProtobuf(mediaType string) bool {
	mt, _, _ := strings.Cut(mediaType, ";")
	return strings.TrimSpace(mt) == MediaProtobuf
}
