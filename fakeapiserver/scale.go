package fakeapiserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"mime"
	"net/http"
	"strconv"
	"strings"

	"github.com/kubecache/kubecache/fakeapiserver/internal/apistatus"
	"github.com/kubecache/kubecache/fakeapiserver/internal/controllers"
	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
	"github.com/kubecache/kubecache/fakeapiserver/internal/patch"
	"github.com/kubecache/kubecache/fakeapiserver/internal/registry"
	"github.com/kubecache/kubecache/fakeapiserver/internal/request"
	"github.com/kubecache/kubecache/fakeapiserver/internal/storage"
	tbl "github.com/kubecache/kubecache/fakeapiserver/internal/table"
	"github.com/kubecache/kubecache/meta"
	"github.com/kubecache/kubecache/selector"
)

// The scale subresource (…/deployments/web/scale): an autoscaling/v1 Scale
// read from and written to the parent's replica count. Deployments,
// replicasets and statefulsets (selector from spec.selector), replication
// controllers (spec.selector is a map) and custom resources whose CRD
// declares subresources.scale (the paths it names) have one. Writing a
// Scale (PUT, or a JSON, merge or strategic merge PATCH of the Scale)
// updates the parent through the ordinary update path: generation bumps,
// watchers see MODIFIED, and a Scale carrying a resourceVersion other
// than the parent's is a 409.

// scaleGroupVersion is the Scale every scale subresource serves.
const scaleGroupVersion = "autoscaling/v1"

// scaleSpec says where a resource keeps what a Scale shows.
type scaleSpec struct {
	specReplicas, statusReplicas []string
	// labelSelector is the path of the selector string (custom
	// resources); nil reads spec.selector instead.
	labelSelector []string
	// defaultReplicas is what spec.replicas means when absent (the real
	// server defaults it to 1 for the built-in kinds on create).
	defaultReplicas int64
}

// scaleFor returns how res scales, or nil when it has no scale
// subresource.
func (s *Server) scaleFor(res *registry.Resource) *scaleSpec {
	if !res.HasSubresource("scale") {
		return nil
	}
	if !res.Custom {
		return &scaleSpec{specReplicas: []string{"spec", "replicas"}, statusReplicas: []string{"status", "replicas"}, defaultReplicas: 1}
	}
	crd := s.store.Get("apiextensions.k8s.io/customresourcedefinitions", res.Name+"."+res.Group)
	if crd == nil {
		return nil
	}
	rest, err := storage.RestOf(crd)
	if err != nil {
		return nil
	}
	spec, err := controllers.ParseCRDSpec(rest)
	if err != nil {
		return nil
	}
	for _, v := range spec.Versions {
		if v.Name != res.Version || v.Subresources == nil || v.Subresources.Scale == nil {
			continue
		}
		var paths struct {
			Spec     string `json:"specReplicasPath"`
			Status   string `json:"statusReplicasPath"`
			Selector string `json:"labelSelectorPath"`
		}
		if err := json.Unmarshal(*v.Subresources.Scale, &paths); err != nil || paths.Spec == "" {
			return nil
		}
		sc := &scaleSpec{specReplicas: jsonPath(paths.Spec), statusReplicas: jsonPath(paths.Status)}
		if paths.Selector != "" {
			sc.labelSelector = jsonPath(paths.Selector)
		}
		return sc
	}
	return nil
}

// jsonPath splits a CRD's simple JSON path (".spec.replicas").
func jsonPath(p string) []string {
	p = strings.TrimPrefix(p, ".")
	if p == "" {
		return nil
	}
	return strings.Split(p, ".")
}

// serveScale serves get, update and patch on a scale subresource.
func (s *Server) serveScale(w http.ResponseWriter, r *http.Request, info request.Info, res *registry.Resource) {
	sc := s.scaleFor(res)
	if sc == nil {
		request.WriteStatus(w, r, apistatus.PathNotFound())
		return
	}
	negotiateFor := request.Negotiate
	if info.Verb == "get" {
		negotiateFor = request.NegotiateRead
	}
	n, err := negotiateFor(r, false)
	if err != nil {
		request.WriteError(w, r, err)
		return
	}
	var obj *storage.Object
	switch info.Verb {
	case "get":
		obj = s.store.Get(res.StorageKey(), storage.ObjectKey(nsFor(res, info), info.Name))
		if obj == nil {
			err = apistatus.NotFound(res.GR(), info.Name)
		}
	case "update":
		obj, err = s.scaleUpdate(r, info, res, sc)
	case "patch":
		obj, err = s.scalePatch(r, info, res, sc)
	default:
		err = apistatus.MethodNotAllowed()
	}
	if err != nil {
		request.WriteError(w, r, err)
		return
	}
	body, err := scaleOf(obj, sc)
	if err == nil && n.Format == request.FormatTable {
		body, err = s.scaleTable(body, n)
	}
	if err != nil {
		request.WriteError(w, r, err)
		return
	}
	request.WriteBody(w, n, http.StatusOK, body)
}

// scalePrinter renders a Scale as the real server's Table does: NAME,
// DESIRED, AVAILABLE.
var scalePrinter = tbl.ForCustom([]tbl.PrinterColumn{
	{Name: "Desired", Type: "integer", JSONPath: ".spec.replicas", Description: "replicas is the desired number of instances for the scaled object."},
	{Name: "Available", Type: "integer", JSONPath: ".status.replicas", Description: "replicas is the actual number of observed instances of the scaled object."},
})

// scaleTable renders an encoded Scale as a one-row Table.
func (s *Server) scaleTable(scale []byte, n request.Negotiation) ([]byte, error) {
	doc, err := jsonv.Parse(scale)
	if err != nil {
		return nil, err
	}
	v := doc.Value
	if spec := v.Get("spec"); spec != nil && spec.Get("replicas") == nil {
		// Omitted at zero in the Scale; the Table shows 0.
		spec.Set("replicas", jsonv.Value{Kind: jsonv.Number, Str: "0"})
	}
	rv := ""
	if md := v.Get("metadata"); md != nil {
		if x := md.Get("resourceVersion"); x != nil {
			rv = x.Str
		}
	}
	return scalePrinter.Render([]jsonv.Value{v}, rvMeta(rv), tbl.Options{Include: n.Include, APIVersion: n.TableAPIVersion, Now: s.clock.Now()}), nil
}

// scaleObject is an autoscaling/v1 Scale.
type scaleObject struct {
	Kind       string          `json:"kind"`
	APIVersion string          `json:"apiVersion"`
	Metadata   meta.ObjectMeta `json:"metadata"`
	Spec       struct {
		Replicas *int64 `json:"replicas,omitempty"`
	} `json:"spec"`
	Status struct {
		Replicas int64  `json:"replicas"`
		Selector string `json:"selector,omitempty"`
	} `json:"status"`
}

// scaleOf renders the Scale of a parent object.
func scaleOf(obj *storage.Object, sc *scaleSpec) ([]byte, error) {
	doc, err := obj.Document()
	if err != nil {
		return nil, err
	}
	var out scaleObject
	out.Kind, out.APIVersion = "Scale", scaleGroupVersion
	m := obj.Meta
	out.Metadata = meta.ObjectMeta{Name: m.Name, Namespace: m.Namespace, UID: m.UID, ResourceVersion: m.ResourceVersion, CreationTimestamp: m.CreationTimestamp}
	replicas, ok := intAt(doc, sc.specReplicas)
	if !ok {
		replicas = sc.defaultReplicas
	}
	if replicas != 0 {
		out.Spec.Replicas = &replicas
	}
	out.Status.Replicas, _ = intAt(doc, sc.statusReplicas)
	if sc.labelSelector != nil {
		if v := valueAt(doc, sc.labelSelector); v != nil && v.Kind == jsonv.String {
			out.Status.Selector = v.Str
		}
	} else {
		out.Status.Selector = selectorOf(valueAt(doc, []string{"spec", "selector"}))
	}
	return json.Marshal(&out)
}

func valueAt(doc jsonv.Value, path []string) *jsonv.Value {
	v := &doc
	for _, k := range path {
		if v == nil || v.Kind != jsonv.Object {
			return nil
		}
		v = v.Get(k)
	}
	return v
}

// intAt reads an integer at path.
func intAt(doc jsonv.Value, path []string) (int64, bool) {
	v := valueAt(doc, path)
	if v == nil || len(path) == 0 || v.Kind != jsonv.Number {
		return 0, false
	}
	n, err := strconv.ParseInt(v.Str, 10, 64)
	return n, err == nil
}

// selectorOf renders a parent's spec.selector as the Scale's selector
// string: a LabelSelector (matchLabels, matchExpressions) or, for
// replication controllers, a plain map of labels.
func selectorOf(sel *jsonv.Value) string {
	if sel == nil || sel.Kind != jsonv.Object {
		return ""
	}
	var reqs []selector.Requirement
	add := func(key string, op selector.Operator, values ...string) {
		if r, err := selector.NewRequirement(key, op, values...); err == nil {
			reqs = append(reqs, r)
		}
	}
	ml, me := sel.Get("matchLabels"), sel.Get("matchExpressions")
	if ml == nil && me == nil {
		ml = sel
	}
	if ml != nil && ml.Kind == jsonv.Object {
		for _, m := range ml.Obj {
			add(m.Key, selector.Equals, m.Value.Str)
		}
	}
	if me != nil && me.Kind == jsonv.Array {
		ops := map[string]selector.Operator{"In": selector.In, "NotIn": selector.NotIn, "Exists": selector.Exists, "DoesNotExist": selector.DoesNotExist}
		for _, e := range me.Arr {
			key, op := e.Get("key"), e.Get("operator")
			if key == nil || op == nil {
				continue
			}
			var values []string
			if vs := e.Get("values"); vs != nil {
				for _, v := range vs.Arr {
					values = append(values, v.Str)
				}
			}
			add(key.Str, ops[op.Str], values...)
		}
	}
	return selector.NewLabels(reqs...).String()
}

// scaleUpdate serves PUT of a Scale.
func (s *Server) scaleUpdate(r *http.Request, info request.Info, res *registry.Resource, sc *scaleSpec) (*storage.Object, error) {
	_, data, wo, err := s.readWrite(r, "Scale", false)
	if err != nil {
		return nil, err
	}
	in, err := decodeScale(data, info.Name)
	if err != nil {
		return nil, err
	}
	return s.scaleTo(r.Context(), res, info, sc, in, wo)
}

// scalePatch serves PATCH of a Scale: the patch applies to the current
// Scale, the result is written as by PUT.
func (s *Server) scalePatch(r *http.Request, info request.Info, res *registry.Resource, sc *scaleSpec) (*storage.Object, error) {
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	var apply func(target, p []byte) (jsonv.Value, error)
	switch mt {
	case mediaJSONPatch:
		apply = patch.JSON
	case mediaMergePatch, mediaStrategicPatch:
		// A Scale has no lists: a strategic merge patch merges as a
		// merge patch does.
		apply = patch.Merge
	default:
		return nil, apistatus.UnsupportedMediaType(fmt.Sprintf("the body of the request was in an unknown format - accepted media types include: %s, %s, %s", mediaJSONPatch, mediaMergePatch, mediaStrategicPatch))
	}
	body, wo, err := s.readPatch(r)
	if err != nil {
		return nil, err
	}
	for attempt := 0; attempt < 100; attempt++ {
		cur := s.store.Get(res.StorageKey(), storage.ObjectKey(nsFor(res, info), info.Name))
		if cur == nil {
			return nil, apistatus.NotFound(res.GR(), info.Name)
		}
		scale, err := scaleOf(cur, sc)
		if err != nil {
			return nil, err
		}
		patched, err := apply(scale, body)
		if err != nil {
			return nil, patchError(err)
		}
		in, err := decodeScale(jsonv.Marshal(patched), info.Name)
		if err != nil {
			return nil, err
		}
		if in.Metadata.ResourceVersion == cur.Meta.ResourceVersion {
			// The patch left the Scale's own resourceVersion: no
			// precondition, but retry if the parent moved meanwhile.
			in.Metadata.ResourceVersion = ""
			in.expect = cur
		}
		obj, err := s.scaleTo(r.Context(), res, info, sc, in, wo)
		if errors.Is(err, storage.ErrChanged) {
			continue
		}
		return obj, err
	}
	return nil, apistatus.Conflict(res.GR(), info.Name, apistatus.MsgModified)
}

// scaleWrite is a decoded Scale to write.
type scaleWrite struct {
	scaleObject
	// expect, when set, is the parent version the Scale was computed
	// from (a patch): a concurrent change is errChanged, for a retry.
	expect *storage.Object
}

// decodeScale reads a Scale body for the object named name.
func decodeScale(data []byte, name string) (*scaleWrite, error) {
	var in scaleWrite
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&in.scaleObject); err != nil {
		return nil, apistatus.BadRequest(fmt.Sprintf("error decoding Scale: %v", err))
	}
	if in.Kind != "" && in.Kind != "Scale" {
		return nil, apistatus.BadRequest(fmt.Sprintf("the body must be a Scale (%s), not %s", scaleGroupVersion, in.Kind))
	}
	switch in.Metadata.Name {
	case name:
	case "":
		return nil, apistatus.BadRequest(fmt.Sprintf("the name of the object (%s based on URL) was undeterminable: name must be provided", name))
	default:
		return nil, apistatus.BadRequest(fmt.Sprintf("the name of the object (%s) does not match the name on the URL (%s)", in.Metadata.Name, name))
	}
	replicas := int64(0)
	if in.Spec.Replicas != nil {
		replicas = *in.Spec.Replicas
	}
	if replicas < 0 {
		return nil, apistatus.Invalid("autoscaling", "Scale", name, []apistatus.FieldError{apistatus.FieldInvalidRaw("spec.replicas", strconv.FormatInt(replicas, 10), "must be greater than or equal to 0")})
	}
	if replicas > math.MaxInt32 {
		return nil, apistatus.BadRequest(fmt.Sprintf("error decoding Scale: spec.replicas: %d does not fit in an int32", replicas))
	}
	return &in, nil
}

// scaleTo sets the parent's replica count from a Scale.
func (s *Server) scaleTo(ctx context.Context, res *registry.Resource, info request.Info, sc *scaleSpec, in *scaleWrite, wo writeOptions) (*storage.Object, error) {
	table, key := res.StorageKey(), storage.ObjectKey(nsFor(res, info), info.Name)
	replicas := int64(0)
	if in.Spec.Replicas != nil {
		replicas = *in.Spec.Replicas
	}
	for attempt := 0; attempt < 100; attempt++ {
		cur := s.store.Get(table, key)
		if cur == nil {
			return nil, apistatus.NotFound(res.GR(), info.Name)
		}
		if in.expect != nil && cur != in.expect {
			return nil, storage.ErrChanged
		}
		if rv := in.Metadata.ResourceVersion; rv != "" && rv != cur.Meta.ResourceVersion {
			return nil, apistatus.Conflict(res.GR(), info.Name, apistatus.MsgModified)
		}
		if in.Metadata.UID != "" && in.Metadata.UID != cur.Meta.UID {
			return nil, apistatus.Conflict(res.GR(), info.Name, fmt.Sprintf("Precondition failed: UID in precondition: %s, UID in object meta: %s", in.Metadata.UID, cur.Meta.UID))
		}
		rest, err := storage.RestOf(cur)
		if err != nil {
			return nil, err
		}
		rest = setPath(rest, sc.specReplicas, jsonv.Value{Kind: jsonv.Number, Str: strconv.FormatInt(replicas, 10)})
		apiVersion := request.GV(res.Group, info.Version)
		next, err := s.prepareUpdate(ctx, res, cur, storage.CloneMeta(cur.Meta), rest, "scale", wo.manager, apiVersion, wo.dryRun)
		if err != nil {
			return nil, err
		}
		obj, err := s.finishUpdate(ctx, res, cur, next, wo.dryRun)
		switch {
		case errors.Is(err, storage.ErrChanged) && in.expect != nil:
			return nil, storage.ErrChanged
		case errors.Is(err, storage.ErrChanged) && in.Metadata.ResourceVersion != "":
			return nil, apistatus.Conflict(res.GR(), info.Name, apistatus.MsgModified)
		case errors.Is(err, storage.ErrChanged):
			continue
		}
		return obj, err
	}
	return nil, apistatus.Conflict(res.GR(), info.Name, apistatus.MsgModified)
}

// setPath sets the member at path (at least one key) in rest, creating
// objects on the way.
func setPath(rest []jsonv.Member, path []string, v jsonv.Value) []jsonv.Member {
	if len(path) == 1 {
		return storage.ReplaceMember(rest, path[0], &v)
	}
	child := jsonv.NewObject()
	if cur := storage.FindMember(rest, path[0]); cur != nil && cur.Kind == jsonv.Object {
		child = cur.Clone()
	}
	child.Obj = setPath(child.Obj, path[1:], v)
	return storage.ReplaceMember(rest, path[0], &child)
}
