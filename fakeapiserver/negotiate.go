package fakeapiserver

import (
	"fmt"
	"mime"
	"net/http"
	"strconv"
	"strings"

	tbl "github.com/kubecache/kubecache/fakeapiserver/internal/table"

	"github.com/kubecache/kubecache/fakeapiserver/internal/apistatus"
	"github.com/kubecache/kubecache/fakeapiserver/internal/registry"
)

// Content negotiation: the server speaks JSON (and YAML for single
// responses). A client that asks for protobuf first and JSON second gets
// JSON; metadata-only (PartialObjectMetadata) is honoured; reads honour
// Table requests (writes skip them: a Table request that also accepts
// plain JSON gets plain JSON); anything else is 406.

// outputFormat is what a response body holds.
type outputFormat uint8

const (
	formatJSON outputFormat = iota
	// formatPartial: PartialObjectMetadata / PartialObjectMetadataList.
	formatPartial
	formatYAML
	// formatTable: a meta.k8s.io Table (list, single GET and watch
	// events); negotiation.tableAPIVersion and include say which.
	formatTable
)

// negotiation is the outcome for one request.
type negotiation struct {
	format outputFormat
	// partialList: the client asked for PartialObjectMetadataList (as
	// opposed to PartialObjectMetadata).
	partialList bool
	pretty      bool
	// contentType overrides the response Content-Type (discovery).
	contentType string
	// tableAPIVersion is the Table's apiVersion the client asked for
	// ("meta.k8s.io/v1" or "meta.k8s.io/v1beta1"), with formatTable.
	tableAPIVersion string
	// include is the includeObject parameter, with formatTable.
	include tbl.IncludeObject
}

const (
	mediaJSON     = "application/json"
	mediaYAML     = "application/yaml"
	mediaProtobuf = "application/vnd.kubernetes.protobuf"
)

// negotiate picks the output for r. stream says the response is a watch
// (no YAML there, as on the real server). Tables are not offered: writes
// answer with the object (see negotiateRead).
func negotiate(r *http.Request, stream bool) (negotiation, error) {
	return negotiateAccept(r, stream, false)
}

// negotiateRead is negotiate for reads (list, single GET, watch), which
// also offer a Table for application/json;as=Table;g=meta.k8s.io;v=v1
// (or v1beta1). A bad includeObject with a Table chosen is 400.
func negotiateRead(r *http.Request, stream bool) (negotiation, error) {
	return negotiateAccept(r, stream, true)
}

func negotiateAccept(r *http.Request, stream, tables bool) (negotiation, error) {
	n := negotiation{pretty: isPretty(r) && !stream}
	accept := strings.TrimSpace(r.Header.Get("Accept"))
	if accept == "" {
		return n, nil
	}
	for _, part := range strings.Split(accept, ",") {
		mt, params, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil {
			continue
		}
		if q, ok := params["q"]; ok {
			if f, err := strconv.ParseFloat(q, 64); err == nil && f == 0 {
				continue
			}
		}
		switch mt {
		case mediaJSON, "*/*", "application/*":
		case mediaYAML:
			if stream {
				continue
			}
		default:
			continue
		}
		switch as := params["as"]; as {
		case "":
			if mt == mediaYAML {
				n.format = formatYAML
			}
			return n, nil
		case "PartialObjectMetadata", "PartialObjectMetadataList":
			if params["g"] != "meta.k8s.io" || (params["v"] != "v1" && params["v"] != "v1beta1") {
				continue
			}
			if mt == mediaYAML {
				continue
			}
			n.format = formatPartial
			n.partialList = as == "PartialObjectMetadataList"
			return n, nil
		case "Table":
			if !tables || mt != mediaJSON || params["g"] != "meta.k8s.io" || (params["v"] != "v1" && params["v"] != "v1beta1") {
				continue
			}
			include, err := tbl.ParseIncludeObject(r.URL.Query().Get("includeObject"))
			if err != nil {
				return n, apistatus.BadRequest("Unable to convert to Table as requested: " + err.Error())
			}
			n.format = formatTable
			n.tableAPIVersion = "meta.k8s.io/" + params["v"]
			n.include = include
			return n, nil
		default:
			// Other transformations are not offered; a later entry may
			// still match.
			continue
		}
	}
	return n, apistatus.NotAcceptable()
}

// isPretty reports whether the response should be indented: ?pretty=true,
// or a command-line or browser user agent.
func isPretty(r *http.Request) bool {
	if strings.Contains(r.URL.RawQuery, "pretty") {
		if p := r.URL.Query().Get("pretty"); p != "" {
			b, _ := strconv.ParseBool(p)
			return b
		}
	}
	ua := r.UserAgent()
	return strings.HasPrefix(ua, "curl") || strings.HasPrefix(ua, "Wget") || strings.HasPrefix(ua, "Mozilla/5.0")
}

// bodyMediaType classifies a request body's Content-Type for create and
// update: JSON and YAML are read; protobuf and anything else are 415.
func bodyMediaType(r *http.Request) (string, error) {
	ct := r.Header.Get("Content-Type")
	if ct == "" {
		return mediaJSON, nil
	}
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return "", apistatus.UnsupportedMediaType("the body of the request was in an unknown format - accepted media types include: application/json, application/yaml")
	}
	switch mt {
	case mediaJSON, mediaYAML:
		return mt, nil
	case mediaProtobuf:
		return "", apistatus.UnsupportedMediaType(`the body of the request was in an unknown format - accepted media types include: application/json, application/yaml (this server does not read protobuf: set ContentType: "application/json" in your client configuration, e.g. client-go's rest.Config)`)
	default:
		return "", apistatus.UnsupportedMediaType("the body of the request was in an unknown format - accepted media types include: application/json, application/yaml")
	}
}

// checkTarget refuses a metadata-only request whose kind does not fit the
// response: PartialObjectMetadata for a list or PartialObjectMetadataList
// for one object (406, with the real server's words).
func (n negotiation) checkTarget(res *registry.Resource, list bool) error {
	if n.format != formatPartial || n.partialList == list {
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
