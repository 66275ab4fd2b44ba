package fakeapiserver

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
	"github.com/kubecache/kubecache/meta"
)

// incoming is a decoded request body: the object split into kind,
// apiVersion, parsed metadata and the other top-level members in order.
type incoming struct {
	kind, apiVersion string
	meta             *meta.ObjectMeta
	rest             []jsonv.Member
	warnings         []string
}

// readBody reads a request body within the size limit.
func readBody(r *http.Request, limit int64) ([]byte, error) {
	if r.Body == nil {
		return nil, nil
	}
	data, err := io.ReadAll(r.Body)
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			return nil, errTooLarge(limit)
		}
		return nil, errBadRequest(fmt.Sprintf("reading the request body: %v", err))
	}
	return data, nil
}

// toJSON converts a YAML body to JSON; JSON passes through.
func toJSON(data []byte, mediaType string) ([]byte, error) {
	if mediaType != mediaYAML {
		return data, nil
	}
	j, err := yaml.YAMLToJSON(data)
	if err != nil {
		return nil, errBadRequest(fmt.Sprintf("error converting YAML to JSON: %v", err))
	}
	return j, nil
}

// decodeObject decodes a create or update body for resource res served at
// version. validation is the fieldValidation directive (Strict, Warn,
// Ignore).
func (s *Server) decodeObject(res *Resource, version string, data []byte, validation string) (*incoming, error) {
	parsed, err := jsonv.Parse(data)
	if err != nil {
		return nil, errBadRequest(fmt.Sprintf("couldn't get version/kind; json parse error: %v", err))
	}
	doc := parsed.Value
	if doc.Kind != jsonv.Object {
		return nil, errBadRequest(fmt.Sprintf("couldn't get version/kind; json parse error: json: cannot unmarshal %v into Go value of type struct { APIVersion string \"json:\\\"apiVersion,omitempty\\\"\"; Kind string \"json:\\\"kind,omitempty\\\"\" }", doc.Kind))
	}
	in := &incoming{kind: res.Kind, apiVersion: gv(res.Group, version)}
	cannot := func(format string, args ...any) error {
		return errBadRequest(fmt.Sprintf("%s in version %q cannot be handled as a %s: %s", in.kind, version, res.Kind, fmt.Sprintf(format, args...)))
	}
	var metaRaw *jsonv.Value
	for i := range doc.Obj {
		m := &doc.Obj[i]
		switch m.Key {
		case "kind":
			if m.Value.Kind != jsonv.String {
				return nil, errBadRequest("couldn't get version/kind; json parse error: json: cannot unmarshal kind: not a string")
			}
			if m.Value.Str != "" {
				in.kind = m.Value.Str
			}
		case "apiVersion":
			if m.Value.Kind != jsonv.String {
				return nil, errBadRequest("couldn't get version/kind; json parse error: json: cannot unmarshal apiVersion: not a string")
			}
			if m.Value.Str != "" {
				in.apiVersion = m.Value.Str
			}
		case "metadata":
			metaRaw = &m.Value
		default:
			in.rest = append(in.rest, *m)
		}
	}
	if in.kind != res.Kind {
		return nil, cannot("no kind %q is registered for version %q", in.kind, in.apiVersion)
	}
	group, ver := splitGV(in.apiVersion)
	if group != res.Group {
		return nil, cannot("the API version %q does not belong to group %q", in.apiVersion, res.Group)
	}
	if ver != version && s.registry.lookup(group, ver, res.Name) == nil {
		return nil, cannot("version %q of %s is not served", ver, res.groupResource())
	}
	in.apiVersion = gv(res.Group, version)

	var unknown []string
	for _, d := range parsed.Duplicates {
		unknown = append(unknown, fmt.Sprintf("json: duplicate field %q", d))
	}
	in.meta = &meta.ObjectMeta{}
	if metaRaw != nil && metaRaw.Kind != jsonv.Null {
		if metaRaw.Kind != jsonv.Object {
			return nil, cannot("json: cannot unmarshal %v into Go struct field %s.metadata of type v1.ObjectMeta", metaRaw.Kind, res.Kind)
		}
		raw := jsonv.Marshal(*metaRaw)
		if err := json.Unmarshal(raw, in.meta); err != nil {
			return nil, cannot("%v", err)
		}
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		var probe meta.ObjectMeta
		if err := dec.Decode(&probe); err != nil {
			if f, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
				unknown = append(unknown, fmt.Sprintf("unknown field \"metadata.%s\"", strings.Trim(f, `"`)))
			}
		}
	}
	switch validation {
	case "Strict":
		if len(unknown) > 0 {
			return nil, errBadRequest("strict decoding error: " + strings.Join(unknown, ", "))
		}
	case "Ignore":
	default:
		in.warnings = unknown
	}
	return in, nil
}

// gv joins a group and version into an apiVersion.
func gv(group, version string) string {
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
