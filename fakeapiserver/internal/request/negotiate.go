package request

import (
	"cmp"
	"fmt"
	"mime"
	"net/http"
	"slices"
	"strconv"
	"strings"

	tbl "github.com/kubecache/kubecache/fakeapiserver/internal/table"

	"github.com/kubecache/kubecache/fakeapiserver/internal/apistatus"
	"github.com/kubecache/kubecache/fakeapiserver/internal/registry"
)

// Content negotiation, as the real server does it: the Accept entries in
// order of q-value (then the more specific first), the first one the
// server can write wins. JSON, protobuf (built-in kinds; a custom
// resource falls back to JSON, see WriteBody) and YAML for single
// responses; metadata-only (PartialObjectMetadata) in JSON or protobuf;
// reads honour Table requests, in JSON only (writes skip them: a Table
// request that also accepts plain JSON gets plain JSON); anything else is
// 406.

// Format is what a response body holds.
type Format uint8

// The formats a response body can hold.
const (
	// FormatJSON: the object or list as JSON (the default).
	FormatJSON Format = iota
	// FormatPartial: PartialObjectMetadata / PartialObjectMetadataList.
	FormatPartial
	// FormatYAML: YAML, for a single response that asked for it.
	FormatYAML
	// FormatTable: a meta.k8s.io Table (list, single GET and watch
	// events); TableAPIVersion and include say which.
	FormatTable
)

// Negotiation is the outcome for one request.
type Negotiation struct {
	Format Format
	// partialList: the client asked for PartialObjectMetadataList (as
	// opposed to PartialObjectMetadata).
	partialList bool
	Pretty      bool
	// ContentType overrides the response Content-Type (discovery).
	ContentType string
	// TableAPIVersion is the Table's apiVersion the client asked for
	// ("meta.k8s.io/v1" or "meta.k8s.io/v1beta1"), with FormatTable.
	TableAPIVersion string
	// Include is the includeObject parameter, with FormatTable.
	Include tbl.IncludeObject
	// Protobuf: the body goes out in the Kubernetes protobuf encoding
	// (FormatJSON and FormatPartial) when its kind has a message.
	Protobuf bool
	// Gzip: the client accepts a gzip-encoded body (Accept-Encoding),
	// which a body of GzipThreshold bytes or more gets.
	Gzip bool
}

// The media types the server reads and writes.
const (
	MediaJSON     = "application/json"
	MediaYAML     = "application/yaml"
	MediaProtobuf = "application/vnd.kubernetes.protobuf"
)

// Negotiate picks the output for r. stream says the response is a watch
// (no YAML there, as on the real server). Tables are not offered: writes
// answer with the object (see NegotiateRead).
func Negotiate(r *http.Request, stream bool) (Negotiation, error) {
	return negotiateAccept(r, stream, false)
}

// NegotiateRead is negotiate for reads (list, single GET, watch), which
// also offer a Table for application/json;as=Table;g=meta.k8s.io;v=v1
// (or v1beta1). A bad includeObject with a Table chosen is 400.
func NegotiateRead(r *http.Request, stream bool) (Negotiation, error) {
	return negotiateAccept(r, stream, true)
}

func negotiateAccept(r *http.Request, stream, tables bool) (Negotiation, error) {
	list := r.Method == http.MethodGet && !stream && listRequest(r)
	n := Negotiation{Pretty: IsPretty(r) && !stream, Gzip: acceptsGzip(r)}
	accept := strings.TrimSpace(r.Header.Get("Accept"))
	if accept == "" {
		return n, nil
	}
	for _, e := range parseAccept(accept) {
		mt, params := e.mediaType, e.params
		switch mt {
		case MediaJSON, "*/*", "application/*":
		case MediaProtobuf:
			if params["as"] == "Table" {
				continue
			}
		case MediaYAML:
			if stream {
				continue
			}
		default:
			continue
		}
		n.Protobuf = mt == MediaProtobuf
		n.Pretty = n.Pretty && !n.Protobuf
		switch as := params["as"]; as {
		case "":
			if mt == MediaYAML {
				n.Format = FormatYAML
			}
			return n, nil
		case "PartialObjectMetadata", "PartialObjectMetadataList":
			if params["g"] != "meta.k8s.io" || (params["v"] != "v1" && params["v"] != "v1beta1") {
				continue
			}
			if mt == MediaYAML {
				continue
			}
			n.Format = FormatPartial
			n.partialList = as == "PartialObjectMetadataList"
			return n, nil
		case "Table":
			if !tables || mt != MediaJSON || params["g"] != "meta.k8s.io" || (params["v"] != "v1" && params["v"] != "v1beta1") {
				continue
			}
			include, err := tbl.ParseIncludeObject(r.URL.Query().Get("includeObject"))
			if err != nil {
				return n, apistatus.BadRequest("Unable to convert to Table as requested: " + err.Error())
			}
			n.Format = FormatTable
			n.TableAPIVersion = "meta.k8s.io/" + params["v"]
			n.Include = include
			return n, nil
		default:
			// Other transformations are not offered; a later entry may
			// still match.
			continue
		}
	}
	return Negotiation{Pretty: n.Pretty, Gzip: n.Gzip}, apistatus.NotAcceptable(stream || list)
}

// listRequest reports whether a GET names a collection (its 406 names
// the watch media types too): a path that ends at a resource, not an
// object.
func listRequest(r *http.Request) bool {
	info, ok := ParsePath(r)
	return ok && info.Name == "" && info.Resource != ""
}

// acceptEntry is one media range of an Accept header.
type acceptEntry struct {
	mediaType string
	params    map[string]string
	q         float64
}

// parseAccept splits an Accept header into its media ranges, drops those
// with q=0 and unparsable ones, and orders them as the real server's
// negotiation does: higher q first, then concrete types before wildcards,
// then more parameters first, otherwise in the client's order.
func parseAccept(accept string) []acceptEntry {
	var out []acceptEntry
	for _, part := range strings.Split(accept, ",") {
		mt, params, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil {
			continue
		}
		e := acceptEntry{mediaType: mt, params: params, q: 1}
		if q, ok := params["q"]; ok {
			f, err := strconv.ParseFloat(q, 64)
			if err != nil || f <= 0 {
				continue
			}
			e.q = f
			delete(params, "q")
		}
		out = append(out, e)
	}
	wild := func(e acceptEntry) int {
		typ, sub, _ := strings.Cut(e.mediaType, "/")
		n := 0
		if typ == "*" {
			n += 2
		}
		if sub == "*" {
			n++
		}
		return n
	}
	slices.SortStableFunc(out, func(a, b acceptEntry) int {
		switch {
		case a.q != b.q:
			return cmp.Compare(b.q, a.q)
		case wild(a) != wild(b):
			return cmp.Compare(wild(a), wild(b))
		}
		return cmp.Compare(len(b.params), len(a.params))
	})
	return out
}

// IsPretty reports whether the response should be indented: ?pretty=true,
// or a command-line or browser user agent.
func IsPretty(r *http.Request) bool {
	if strings.Contains(r.URL.RawQuery, "pretty") {
		if p := r.URL.Query().Get("pretty"); p != "" {
			b, _ := strconv.ParseBool(p)
			return b
		}
	}
	ua := r.UserAgent()
	return strings.HasPrefix(ua, "curl") || strings.HasPrefix(ua, "Wget") || strings.HasPrefix(ua, "Mozilla/5.0")
}

// BodyMediaType classifies a request body's Content-Type for create and
// update: JSON, YAML and protobuf are read; anything else is 415.
func BodyMediaType(r *http.Request) (string, error) {
	ct := r.Header.Get("Content-Type")
	if ct == "" {
		return MediaJSON, nil
	}
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return "", apistatus.UnsupportedMediaType("the body of the request was in an unknown format - accepted media types include: application/json, application/yaml")
	}
	switch mt {
	case MediaJSON, MediaYAML, MediaProtobuf:
		return mt, nil
	default:
		return "", apistatus.UnsupportedMediaType("the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf")
	}
}

// CheckTarget refuses a metadata-only request whose kind does not fit the
// response: PartialObjectMetadata for a list or PartialObjectMetadataList
// for one object (406, with the real server's words).
func (n Negotiation) CheckTarget(res *registry.Resource, list bool) error {
	if n.Format != FormatPartial || n.partialList == list {
		return nil
	}
	if list {
		return apistatus.New(406, "NotAcceptable", fmt.Sprintf("you requested PartialObjectMetadata, but the requested object is a list (%sList)", goTypeName(res)))
	}
	return apistatus.New(406, "NotAcceptable", fmt.Sprintf("you requested PartialObjectMetadataList, but the requested object is not a list (%s)", goTypeName(res)))
}

// goTypeName approximates the real server's internal Go type name of a
// resource's objects, as its 406 messages show it ("*core.ConfigMap").
func goTypeName(res *registry.Resource) string {
	if res.Custom {
		return "*unstructured.Unstructured"
	}
	pkg := "core"
	if res.Group != "" {
		pkg, _, _ = strings.Cut(res.Group, ".")
	}
	return "*" + pkg + "." + res.Kind
}
