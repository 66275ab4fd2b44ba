package fakeapiserver

import (
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
	"github.com/kubecache/kubecache/fakeapiserver/internal/registry"
	"github.com/kubecache/kubecache/fakeapiserver/internal/request"
	"github.com/kubecache/kubecache/fakeapiserver/internal/storage"
	tbl "github.com/kubecache/kubecache/fakeapiserver/internal/table"
)

// Tables: a read negotiated as request.FormatTable (request.NegotiateRead) answers with a
// meta.k8s.io Table rendered by internal/table. A list is one Table with
// the list's metadata; a single GET a one-row Table with the object's
// resourceVersion; each watch event a one-row Table, only the first of
// the stream carrying columnDefinitions.

// printerFor returns the Table printer of r: the built-in one for its
// group and resource, or the CRD's additionalPrinterColumns (Name and Age
// without any) for a custom resource.
func printerFor(r *registry.Resource) tbl.Printer {
	if r.Custom {
		return tbl.ForCustom(r.PrinterColumns)
	}
	return tbl.For(r.Group, r.Name)
}

// tableRenderer renders the objects of one resource for one request.
type tableRenderer struct {
	printer    tbl.Printer
	apiVersion string // of the objects in the rows
	opts       tbl.Options
}

// newTableRenderer prepares the Table output of res at a served version
// for a negotiated request.
func (s *Server) newTableRenderer(res *registry.Resource, version string, n request.Negotiation) *tableRenderer {
	return &tableRenderer{
		printer:    printerFor(res),
		apiVersion: request.GV(res.Group, version),
		opts:       tbl.Options{Include: n.Include, APIVersion: n.TableAPIVersion},
	}
}

// render returns a Table of objs with listMeta (raw JSON) as its
// metadata, ages counted from now.
func (t *tableRenderer) render(objs []*storage.Object, listMeta []byte, now time.Time, noColumns bool) ([]byte, error) {
	values := make([]jsonv.Value, 0, len(objs))
	for _, o := range objs {
		doc, err := jsonv.Parse(request.AtVersion(o, t.apiVersion).AppendObject(nil, t.apiVersion))
		if err != nil {
			return nil, fmt.Errorf("table of %s: %w", o.Key, err)
		}
		values = append(values, doc.Value)
	}
	opts := t.opts
	opts.Now, opts.NoColumns = now, noColumns
	return t.printer.Render(values, json.RawMessage(listMeta), opts), nil
}

// rvMeta is the Table metadata of a single object or watch event.
func rvMeta(rv string) []byte {
	buf := []byte(`{"resourceVersion":`)
	buf = strconv.AppendQuote(buf, rv)
	return append(buf, '}')
}
