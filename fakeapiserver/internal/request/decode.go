package request

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"

	"sigs.k8s.io/yaml"
	goyaml "sigs.k8s.io/yaml/goyaml.v2"

	"github.com/kubecache/kubecache/fakeapiserver/internal/apistatus"
	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
	"github.com/kubecache/kubecache/fakeapiserver/internal/registry"
	"github.com/kubecache/kubecache/fakeapiserver/internal/validation"
	"github.com/kubecache/kubecache/meta"
)

// Incoming is a decoded request body: the object split into kind,
// apiVersion, parsed metadata and the other top-level members in order.
// A body written at a version the kind converts from is converted to its
// storage version: APIVersion is the storage version and SentAPIVersion
// the version the client wrote, at which managedFields are recorded.
type Incoming struct {
	Kind, APIVersion string
	SentAPIVersion   string
	Meta             *meta.ObjectMeta
	Rest             []jsonv.Member
	Warnings         []string
}

// ReadBody reads a request body within the size limit.
func ReadBody(r *http.Request, limit int64) ([]byte, error) {
	if r.Body == nil {
		return nil, nil
	}
	data, err := io.ReadAll(r.Body)
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			return nil, apistatus.TooLarge(limit)
		}
		if errors.Is(err, os.ErrDeadlineExceeded) || r.Context().Err() != nil {
			// The body stalled past the request's deadline.
			return nil, apistatus.RequestTimedOut()
		}
		return nil, apistatus.BadRequest(fmt.Sprintf("reading the request body: %v", err))
	}
	return data, nil
}

// ToJSON converts a body to JSON: YAML converted, protobuf decoded (see
// ProtobufToJSON: kind is the kind the handler reads, custom whether the
// resource is a custom one), JSON passed through. limit, the body limit,
// bounds the JSON of a YAML body as well: an anchor aliased many times
// makes a small YAML body expand without end, so the expansion is
// measured before it is written and refused with 413 past the limit.
func ToJSON(data []byte, mediaType, kind string, custom bool, limit int64) ([]byte, error) {
	if mediaType == MediaProtobuf {
		return ProtobufToJSON(data, kind, custom)
	}
	if mediaType != MediaYAML {
		return data, nil
	}
	return YAMLToJSON(data, limit)
}

// YAMLToJSON converts one YAML document to JSON, refusing with 413 (the
// body limit's answer) one whose JSON would be larger than limit.
func YAMLToJSON(data []byte, limit int64) ([]byte, error) {
	if err := CheckYAMLExpansion(data, limit); err != nil {
		return nil, err
	}
	j, err := yaml.YAMLToJSON(data)
	if err != nil {
		return nil, apistatus.BadRequest(fmt.Sprintf("error converting YAML to JSON: %v", err))
	}
	if int64(len(j)) > limit {
		return nil, apistatus.TooLarge(limit)
	}
	return j, nil
}

// CheckYAMLExpansion returns the body limit's 413 when the YAML document
// data would be larger than limit once converted to JSON (its aliases
// expanded), and nil otherwise, a document that does not parse included:
// the caller's own conversion reports that in its words.
func CheckYAMLExpansion(data []byte, limit int64) error {
	var tree any
	if err := goyaml.Unmarshal(data, &tree); err != nil {
		return nil
	}
	if expandedSize(tree, limit) > limit {
		return apistatus.TooLarge(limit)
	}
	return nil
}

// expandedSize returns at least the length of v's JSON encoding (strings
// count without their escapes), counting an aliased value once for every
// place it appears; it stops counting once past limit. Aliases share their
// decoded value, so the walk costs the nodes, not the bytes.
func expandedSize(v any, limit int64) int64 {
	var n int64
	var walk func(v any)
	walk = func(v any) {
		if n > limit {
			return
		}
		switch x := v.(type) {
		case string:
			n += int64(len(x)) + 2
		case []any:
			n += 2 + int64(len(x))
			for _, e := range x {
				walk(e)
			}
		case map[any]any:
			n += 2 + int64(len(x))
			for k, e := range x {
				walk(fmt.Sprint(k))
				walk(e)
			}
		default:
			n += 5 // a number, true, false or null
		}
	}
	walk(v)
	return n
}

// DecodeObject decodes a create or update body for resource res served at
// version. directive is the fieldValidation parameter (Strict, Warn,
// Ignore).
func DecodeObject(reg *registry.Registry, res *registry.Resource, version string, data []byte, directive string) (*Incoming, error) {
	parsed, err := jsonv.Parse(data)
	if err != nil {
		return nil, apistatus.BadRequest(fmt.Sprintf("couldn't get version/kind; json parse error: %v", err))
	}
	doc := parsed.Value
	if doc.Kind != jsonv.Object {
		return nil, apistatus.BadRequest(fmt.Sprintf("couldn't get version/kind; json parse error: json: cannot unmarshal %v into Go value of type struct { APIVersion string \"json:\\\"apiVersion,omitempty\\\"\"; Kind string \"json:\\\"kind,omitempty\\\"\" }", doc.Kind))
	}
	in := &Incoming{Kind: res.Kind, APIVersion: GV(res.Group, version)}
	cannot := func(format string, args ...any) *meta.Status {
		return apistatus.BadRequest(fmt.Sprintf("%s in version %q cannot be handled as a %s: %s", in.Kind, version, res.Kind, fmt.Sprintf(format, args...)))
	}
	var metaRaw *jsonv.Value
	for i := range doc.Obj {
		m := &doc.Obj[i]
		switch m.Key {
		case "kind":
			if m.Value.Kind != jsonv.String {
				return nil, apistatus.BadRequest("couldn't get version/kind; json parse error: json: cannot unmarshal kind: not a string")
			}
			if m.Value.Str != "" {
				in.Kind = m.Value.Str
			}
		case "apiVersion":
			if m.Value.Kind != jsonv.String {
				return nil, apistatus.BadRequest("couldn't get version/kind; json parse error: json: cannot unmarshal apiVersion: not a string")
			}
			if m.Value.Str != "" {
				in.APIVersion = m.Value.Str
			}
		case "metadata":
			metaRaw = &m.Value
		default:
			in.Rest = append(in.Rest, *m)
		}
	}
	if in.Kind != res.Kind {
		return nil, cannot("no kind %q is registered for version %q", in.Kind, in.APIVersion)
	}
	group, ver := splitGV(in.APIVersion)
	if group != res.Group {
		return nil, cannot("the API version %q does not belong to group %q", in.APIVersion, res.Group)
	}
	if ver != version && reg.Lookup(group, ver, res.Name) == nil {
		return nil, cannot("version %q of %s is not served", ver, res.GroupResource())
	}
	in.APIVersion = GV(res.Group, version)

	in.Meta = &meta.ObjectMeta{}
	if metaRaw != nil && metaRaw.Kind != jsonv.Null && metaRaw.Kind != jsonv.Object {
		detail := fmt.Sprintf("json: cannot unmarshal %v into Go struct field %s.metadata of type v1.ObjectMeta", validation.GoKind(metaRaw.Kind), res.Kind)
		return nil, &bodyError{status: cannot("%s", detail), detail: detail}
	}
	walk := validation.CheckTypes(res, version, &doc, parsed.Duplicates)
	if walk.Err != "" {
		return nil, &bodyError{status: cannot("%s", walk.Err), detail: walk.Err}
	}
	if walk.Pruned {
		in.Rest = in.Rest[:0]
		for _, m := range doc.Obj {
			switch m.Key {
			case "kind", "apiVersion", "metadata":
			default:
				in.Rest = append(in.Rest, m)
			}
		}
	}
	if metaRaw != nil && metaRaw.Kind == jsonv.Object {
		if err := json.Unmarshal(jsonv.Marshal(*metaRaw), in.Meta); err != nil {
			return nil, cannot("%v", err)
		}
	}
	var customErrs []apistatus.FieldError
	if res.Custom && res.CustomSchema != nil {
		var unknown []string
		in.Rest, unknown, customErrs = validation.CheckCustom(in.Rest, res)
		walk.Fields = append(walk.Fields, unknown...)
	}
	switch directive {
	case "Strict":
		if len(walk.Fields) > 0 {
			detail := "strict decoding error: " + strings.Join(walk.Fields, ", ")
			return nil, &bodyError{status: cannot("%s", detail), detail: detail}
		}
	case "Ignore":
	default:
		in.Warnings = walk.Fields
	}
	if len(customErrs) > 0 {
		return nil, apistatus.Invalid(res.Group, res.Kind, in.Meta.Name, customErrs)
	}
	in.SentAPIVersion = in.APIVersion
	toStoredVersion(in)
	return in, nil
}

// GV joins a group and version into an apiVersion.
func GV(group, version string) string {
	if group == "" {
		return version
	}
	return group + "/" + version
}

// splitGV splits an apiVersion into group and version.
func splitGV(apiVersion string) (string, string) {
	if g, v, ok := strings.Cut(apiVersion, "/"); ok {
		return g, v
	}
	return "", apiVersion
}

// bodyError is a body the kind's Go type would not decode (a wrong type, a
// bad quantity, a strict-mode unknown field): the 400 a create or update
// gets, and the bare decoding message, which a patch reports as its own
// 422 (decodePatched).
type bodyError struct {
	status *meta.Status
	detail string
}

func (e *bodyError) Error() string { return e.status.Error() }

// Unwrap gives the Status, so WriteError sends the 400.
func (e *bodyError) Unwrap() error { return e.status }

// DecodePatched decodes the object a JSON, merge or strategic merge patch
// produced. A result the kind's Go type would not decode is the real
// server's 422 on the field "patch", quoting the patched object.
func DecodePatched(reg *registry.Registry, res *registry.Resource, version string, patched []byte, directive string) (*Incoming, error) {
	in, err := DecodeObject(reg, res, version, patched, directive)
	var be *bodyError
	if errors.As(err, &be) {
		return nil, apistatus.Invalid("", "", "", []apistatus.FieldError{apistatus.FieldInvalid("patch", string(patched), be.detail)})
	}
	return in, err
}
