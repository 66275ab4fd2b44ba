package fakeapiserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/kubecache/kubecache/fakeapiserver/internal/apistatus"
	"github.com/kubecache/kubecache/fakeapiserver/internal/apply"
	"github.com/kubecache/kubecache/fakeapiserver/internal/controllers"
	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
	"github.com/kubecache/kubecache/fakeapiserver/internal/registry"
	"github.com/kubecache/kubecache/fakeapiserver/internal/request"
	"github.com/kubecache/kubecache/fakeapiserver/internal/storage"
	"github.com/kubecache/kubecache/fakeapiserver/internal/validation"
	"github.com/kubecache/kubecache/meta"
	"github.com/kubecache/kubecache/watch"
)

// writeOptions are the query parameters every write accepts.
type writeOptions struct {
	dryRun     bool
	manager    string
	validation string
	// managed, when set (server-side apply), is the managedFields to
	// store instead of recording an Update entry.
	managed meta.ManagedFields
}

// parseWriteOptions reads the options of a create, update or patch;
// optionsKind names them in errors ("CreateOptions"...).
func parseWriteOptions(r *http.Request) (writeOptions, error) {
	q := r.URL.Query()
	wo := writeOptions{manager: q.Get("fieldManager"), validation: q.Get("fieldValidation")}
	kind := "CreateOptions"
	switch r.Method {
	case http.MethodPut:
		kind = "UpdateOptions"
	case http.MethodPatch:
		kind = "PatchOptions"
	}
	var errs []apistatus.FieldError
	if dr := q["dryRun"]; len(dr) > 0 {
		wo.dryRun = true
		if err := checkDryRun(dr); err != nil {
			errs = append(errs, *err)
		}
	}
	switch wo.validation {
	case "", "Strict", "Warn", "Ignore":
	default:
		errs = append(errs, apistatus.FieldNotSupported("fieldValidation", wo.validation, "", "Ignore", "Strict", "Warn"))
	}
	errs = append(errs, validation.FieldManager(wo.manager)...)
	if len(errs) > 0 {
		return wo, apistatus.Invalid("meta.k8s.io", kind, "", errs)
	}
	if wo.manager == "" {
		wo.manager = defaultManager(r.UserAgent())
	}
	return wo, nil
}

// checkDryRun accepts only "All", reporting the whole list otherwise as the
// real server does (Unsupported value: ["x"]).
func checkDryRun(values []string) *apistatus.FieldError {
	for _, d := range values {
		if d != "All" {
			q := make([]string, len(values))
			for i, v := range values {
				q[i] = strconv.Quote(v)
			}
			e := apistatus.FieldNotSupported("dryRun", "", "All")
			e.Value = "[" + strings.Join(q, ",") + "]"
			return &e
		}
	}
	return nil
}

// handleCreate serves POST on a collection.
func (s *Server) handleCreate(w http.ResponseWriter, r *http.Request, info request.Info, res *registry.Resource) {
	if info.Name != "" || (res.Namespaced && info.Namespace == "") {
		request.WriteStatus(w, r, apistatus.MethodNotAllowed())
		return
	}
	n, data, wo, err := s.readWrite(r, res.Kind, res.Custom)
	if err != nil {
		request.WriteError(w, r, err)
		return
	}
	obj, warnings, err := s.create(r.Context(), res, info.Version, info.Namespace, data, wo)
	if err != nil {
		addWarnings(w, warnings)
		request.WriteError(w, r, err)
		return
	}
	addWarnings(w, warnings)
	request.WriteBody(w, n, http.StatusCreated, request.EncodeObject(obj, n.Format, request.GV(res.Group, info.Version)))
}

// addWarnings sets one Warning header per message, as the real server does.
func addWarnings(w http.ResponseWriter, warnings []string) {
	for _, msg := range warnings {
		w.Header().Add("Warning", "299 - "+strconv.Quote(msg))
	}
}

// create stores a new object from a decoded body. namespace comes from the
// URL ("" for cluster-scoped resources).
func (s *Server) create(ctx context.Context, res *registry.Resource, version, namespace string, data []byte, wo writeOptions) (*storage.Object, []string, error) {
	in, err := request.DecodeObject(s.registry, res, version, data, wo.validation)
	if err != nil {
		return nil, nil, err
	}
	return s.createDecoded(ctx, res, namespace, in, wo)
}

func (s *Server) createDecoded(ctx context.Context, res *registry.Resource, namespace string, in *request.Incoming, wo writeOptions) (*storage.Object, []string, error) {
	m := in.Meta
	if m.ResourceVersion != "" {
		return nil, nil, apistatus.New(500, meta.ReasonUnknown, "resourceVersion should not be set on objects to be created")
	}
	switch {
	case !res.Namespaced:
		m.Namespace = ""
	case m.Namespace == "":
		m.Namespace = namespace
	case m.Namespace != namespace:
		return nil, nil, apistatus.BadRequest("the namespace of the provided object does not match the namespace sent on the request")
	}
	now := s.clock.Now()
	m.UID = s.newUID()
	m.CreationTimestamp = meta.NewTime(now)
	m.DeletionTimestamp = nil
	m.DeletionGracePeriodSeconds = nil
	m.Generation = 0
	if res.Generation {
		m.Generation = 1
	}
	generated := m.Name == "" && m.GenerateName != ""
	if generated {
		m.Name = s.generateName(m.GenerateName)
	}
	if errs := validation.ObjectMeta(res, m); len(errs) > 0 {
		return nil, nil, apistatus.Invalid(res.Group, res.Kind, m.Name, errs)
	}
	// A refusal carries the warnings given before it, as on the real
	// server: the decoder's before the registry prepares the object, the
	// registry's too when it refuses it, and the strategy's after it
	// accepted it.
	prepared, warnings := s.builtinWarnings(res, in.APIVersion, m, in.Rest, in.Warnings)
	rest := s.builtinDecoded(res, in.APIVersion, m, initialStatus(res, in.Rest))
	reqName := m.Name
	if generated {
		reqName = ""
	}
	rest, err := s.mutateByPolicies(ctx, policyWrite{op: "CREATE", res: res, apiVersion: in.APIVersion, name: reqName, meta: m, rest: rest,
		options: writeOptionsDoc("CreateOptions", wo), dryRun: wo.dryRun})
	if err != nil {
		return nil, in.Warnings, err
	}
	if errs := validation.CustomValues(res, in.APIVersion, m, rest, nil); len(errs) > 0 {
		return nil, in.Warnings, apistatus.Invalid(res.Group, res.Kind, m.Name, errs)
	}
	if hook := s.ctrl.CreateHook(res); hook != nil {
		var err error
		if rest, err = hook(ctx, m, rest); err != nil {
			return nil, in.Warnings, err
		}
	}
	if res.Namespaced {
		if err := s.checkNamespaceForCreate(res, m.Namespace, reqName); err != nil {
			return nil, in.Warnings, err
		}
	}
	doc := storage.DocumentOf(rest)
	fields := res.SelectableFields(&doc)
	if m.ManagedFields, err = createdManagedFields(res, in, m, rest, fields, wo, now); err != nil {
		return nil, in.Warnings, err
	}
	rest, err = s.builtinAdmitCreate(res, in.APIVersion, m, rest, wo.dryRun)
	if err != nil {
		return nil, prepared, err
	}
	if err := s.admitByPolicies(ctx, policyWrite{op: "CREATE", res: res, apiVersion: in.APIVersion, name: reqName, meta: m, rest: rest,
		options: writeOptionsDoc("CreateOptions", wo), dryRun: wo.dryRun}); err != nil {
		s.releaseService(res, m)
		return nil, warnings, err
	}
	if res.StorageKey() == "/namespaces" {
		rest = controllers.NamespaceSpecDefault(rest)
	}
	doc = storage.DocumentOf(rest)
	fields = res.SelectableFields(&doc)
	restJSON := storage.EncodeRest(rest)
	if wo.dryRun {
		obj, err := storage.Assemble(in.Kind, in.APIVersion, m, restJSON, fields)
		return obj, warnings, err
	}
	if err := requestEnded(ctx); err != nil {
		return nil, warnings, err
	}
	for attempt := 0; ; attempt++ {
		key := storage.ObjectKey(m.Namespace, m.Name)
		obj, err := s.store.Commit(res.StorageKey(), key, watch.Added, nil, func(rv int64) (*storage.Object, error) {
			m.ResourceVersion = strconv.FormatInt(rv, 10)
			return storage.Assemble(in.Kind, in.APIVersion, m, restJSON, fields)
		})
		if errors.Is(err, storage.ErrChanged) {
			if generated && attempt < 8 {
				m.Name = s.generateName(m.GenerateName)
				continue
			}
			s.releaseService(res, m)
			st := apistatus.AlreadyExists(res.GR(), m.Name)
			if generated {
				st.Details.RetryAfterSeconds = 1
			}
			return nil, warnings, st
		}
		if err != nil {
			s.releaseService(res, m)
			return nil, warnings, err
		}
		s.ctrl.AfterWrite(ctx, res, watch.Added, nil, obj)
		return obj, warnings, nil
	}
}

// createdManagedFields returns the managedFields of an object being
// created with metadata m and body rest: wo.managed when set (server-side
// apply), otherwise an Update entry of wo's manager added to the entries
// the client sent, if any, recorded at the version the client wrote.
func createdManagedFields(res *registry.Resource, in *request.Incoming, m *meta.ObjectMeta, rest []jsonv.Member, fields map[string]string, wo writeOptions, now time.Time) (meta.ManagedFields, error) {
	if wo.managed != nil {
		return wo.managed, nil
	}
	doc, err := createdDocument(res, in, m, rest, fields)
	if err != nil {
		return nil, err
	}
	managed, err := meta.ParseManagedFields(apply.Update(jsonv.Value{Kind: jsonv.Null}, doc, updateType(res, in.SentAPIVersion), apply.Request{
		Manager: wo.manager, APIVersion: in.SentAPIVersion, StatusSubresource: res.HasStatus(), SpecReset: specReset(res), Now: now,
		Convert: managedConverter(res, in.SentAPIVersion)}))
	if err != nil {
		return nil, apistatus.Internal(err)
	}
	return managed, nil
}

// createdDocument is the new object as its managedFields are computed
// from: as sent, at the version it was sent in. A built-in object sent at
// its storage version is put together from its members as they are; any
// other is encoded and read back at the version sent, converting it.
func createdDocument(res *registry.Resource, in *request.Incoming, m *meta.ObjectMeta, rest []jsonv.Member, fields map[string]string) (jsonv.Value, error) {
	recorded := builtinRecorded(res, in.APIVersion, rest)
	if res.Custom || (in.SentAPIVersion != "" && in.SentAPIVersion != in.APIVersion) {
		sent, err := storage.Assemble(in.Kind, in.APIVersion, m, storage.EncodeRest(recorded), fields)
		if err != nil {
			return jsonv.Value{}, err
		}
		return managedDocument(sent, in.SentAPIVersion)
	}
	// builtinRecorded returned a copy of the members: the document may
	// hold them.
	mj, err := json.Marshal(m)
	if err != nil {
		return jsonv.Value{}, fmt.Errorf("encode metadata: %w", err)
	}
	md, err := jsonv.Parse(mj)
	if err != nil {
		return jsonv.Value{}, fmt.Errorf("encoded metadata: %w", err)
	}
	obj := make([]jsonv.Member, 0, len(recorded)+3)
	obj = append(obj,
		jsonv.Member{Key: "kind", Value: jsonv.NewString(in.Kind)},
		jsonv.Member{Key: "apiVersion", Value: jsonv.NewString(in.APIVersion)},
		jsonv.Member{Key: "metadata", Value: md.Value})
	return jsonv.Value{Kind: jsonv.Object, Obj: append(obj, recorded...)}, nil
}

// generateName appends 5 random characters to prefix, truncating the
// prefix so the name fits in 63 characters.
func (s *Server) generateName(prefix string) string {
	if len(prefix) > 58 {
		prefix = prefix[:58]
	}
	return prefix + s.nameSuffix()
}

// initialStatus sets .status on create for resources with a status
// subresource: the real server resets it (custom resources drop it).
func initialStatus(res *registry.Resource, rest []jsonv.Member) []jsonv.Member {
	if !res.HasStatus() || res.StorageKey() == "/nodes" {
		// The Node registry keeps the status a create sends (a kubelet
		// registers its node with its capacity).
		return rest
	}
	out := make([]jsonv.Member, 0, len(rest)+1)
	for _, m := range rest {
		if m.Key != "status" {
			out = append(out, m)
		}
	}
	if res.Custom {
		return out
	}
	st, err := jsonv.Parse([]byte(initialStatusJSON(res)))
	if err != nil {
		return out
	}
	return append(out, jsonv.Member{Key: "status", Value: st.Value})
}

func initialStatusJSON(res *registry.Resource) string {
	switch res.StorageKey() {
	case "/pods":
		return `{"phase":"Pending","qosClass":"BestEffort"}`
	case "/namespaces":
		return `{"phase":"Active"}`
	case "/services":
		return `{"loadBalancer":{}}`
	}
	return `{}`
}

// checkNamespaceForCreate applies the namespace lifecycle rules to a
// create of res named name ("" when generated): the namespace must exist
// and not be terminating.
func (s *Server) checkNamespaceForCreate(res *registry.Resource, ns, name string) error {
	o := s.store.Get("/namespaces", ns)
	if o == nil {
		return apistatus.NotFound(apistatus.GroupResource{Resource: "namespaces"}, ns)
	}
	if o.Meta.DeletionTimestamp != nil {
		what := res.GroupResource()
		if name != "" {
			what += " " + strconv.Quote(name)
		}
		st := apistatus.New(403, meta.ReasonForbidden, fmt.Sprintf("%s is forbidden: unable to create new content in namespace %s because it is being terminated", what, ns))
		st.Details = &meta.StatusDetails{Name: name, Group: res.Group, Kind: res.Name, Causes: []meta.StatusCause{{Type: "NamespaceTerminating", Message: fmt.Sprintf("namespace %s is being terminated", ns), Field: "metadata.namespace"}}}
		return st
	}
	return nil
}

// readWrite does what every handler of a write with an object body does
// first, in the real server's order: negotiate the response type, read the
// body (bounded, YAML and protobuf converted to JSON) and parse the write
// options. kind is the kind the body should hold, custom whether the
// resource is a custom one (no protobuf).
func (s *Server) readWrite(r *http.Request, kind string, custom bool) (request.Negotiation, []byte, writeOptions, error) {
	n, err := request.Negotiate(r, false)
	if err != nil {
		return request.Negotiation{}, nil, writeOptions{}, err
	}
	mt, err := request.BodyMediaType(r)
	if err != nil {
		return request.Negotiation{}, nil, writeOptions{}, err
	}
	data, err := request.ReadBody(r, s.opts.MaxRequestBodyBytes)
	if err == nil {
		data, err = request.ToJSON(data, mt, kind, custom, s.opts.MaxRequestBodyBytes)
	}
	if err != nil {
		return request.Negotiation{}, nil, writeOptions{}, err
	}
	wo, err := parseWriteOptions(r)
	if err != nil {
		return request.Negotiation{}, nil, writeOptions{}, err
	}
	return n, data, wo, nil
}
