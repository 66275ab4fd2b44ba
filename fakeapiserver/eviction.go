package fakeapiserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/kubecache/kubecache/fakeapiserver/internal/apistatus"
	"github.com/kubecache/kubecache/fakeapiserver/internal/builtin"
	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
	"github.com/kubecache/kubecache/fakeapiserver/internal/registry"
	"github.com/kubecache/kubecache/fakeapiserver/internal/request"
	"github.com/kubecache/kubecache/fakeapiserver/internal/storage"
	"github.com/kubecache/kubecache/meta"
)

// POST pods/{name}/eviction: the pod is deleted (with the Eviction's
// deleteOptions) unless a PodDisruptionBudget that selects it has no
// disruption to give, as the real server's eviction handler decides
// (internal/builtin's eviction rules). Nothing computes a budget's status
// here, as on a real server without kube-controller-manager, so a pod a
// budget guards is only evicted once a test writes the budget's status.

// evictionAttempts bounds the retries of an eviction that conflicts with
// concurrent writes (the real server retries 20 times).
const evictionAttempts = 20

// eviction is a decoded policy/v1 (or v1beta1) Eviction.
type eviction struct {
	name, namespace string
	opts            meta.DeleteOptions
	// hasOptions: the body had deleteOptions.
	hasOptions bool
}

// parseEviction decodes an Eviction body (JSON), refusing what the real
// server refuses with its 400 or 422.
func parseEviction(data []byte) (eviction, error) {
	var body struct {
		Kind       *string          `json:"kind"`
		APIVersion *string          `json:"apiVersion"`
		Metadata   *json.RawMessage `json:"metadata"`
		Options    *json.RawMessage `json:"deleteOptions"`
	}
	cannot := func(kind, apiVersion, detail string) error {
		_, version, ok := strings.Cut(apiVersion, "/")
		if !ok {
			version = apiVersion
		}
		return apistatus.BadRequest(fmt.Sprintf("%s in version %q cannot be handled as a Eviction: %s", kind, version, detail))
	}
	if err := json.Unmarshal(data, &body); err != nil {
		return eviction{}, apistatus.BadRequest(fmt.Sprintf("couldn't get version/kind; json parse error: %v", err))
	}
	kind, apiVersion := "Eviction", "policy/v1"
	if body.Kind != nil && *body.Kind != "" {
		kind = *body.Kind
	}
	if body.APIVersion != nil && *body.APIVersion != "" {
		apiVersion = *body.APIVersion
	}
	if kind != "Eviction" || (apiVersion != "policy/v1" && apiVersion != "policy/v1beta1") {
		return eviction{}, cannot(kind, apiVersion, fmt.Sprintf("no kind %q is registered for version %q in scheme \"pkg/runtime/scheme.go:111\"", kind, apiVersion))
	}
	var ev eviction
	if body.Metadata != nil && string(*body.Metadata) != "null" {
		var m struct {
			Name      string `json:"name"`
			Namespace string `json:"namespace"`
		}
		if err := json.Unmarshal(*body.Metadata, &m); err != nil {
			return eviction{}, cannot(kind, apiVersion, goFieldError(err, "Eviction.metadata", "v1.ObjectMeta"))
		}
		ev.name, ev.namespace = m.Name, m.Namespace
	}
	if body.Options != nil && string(*body.Options) != "null" {
		var extra struct {
			IgnoreStoreRead *bool `json:"ignoreStoreReadErrorWithClusterBreakingPotential"`
		}
		if err := json.Unmarshal(*body.Options, &ev.opts); err != nil {
			return eviction{}, cannot(kind, apiVersion, goFieldError(err, "Eviction.deleteOptions", "v1.DeleteOptions"))
		}
		if err := json.Unmarshal(*body.Options, &extra); err != nil {
			return eviction{}, cannot(kind, apiVersion, goFieldError(err, "Eviction.deleteOptions", "v1.DeleteOptions"))
		}
		ev.hasOptions = true
		if extra.IgnoreStoreRead != nil && *extra.IgnoreStoreRead {
			return eviction{}, apistatus.Invalid("policy", "Eviction", ev.name, []apistatus.FieldError{apistatus.FieldInvalidRaw(
				"deleteOptions.ignoreStoreReadErrorWithClusterBreakingPotential", "true", "can not be set for pod eviction, try after removing the option")})
		}
	}
	return ev, nil
}

// goFieldError words a JSON type error as the real server's Go decoder
// does for a field of type goType.
func goFieldError(err error, field, goType string) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field == "" {
		return fmt.Sprintf("json: cannot unmarshal %s into Go struct field %s of type %s", te.Value, field, goType)
	}
	return err.Error()
}

// serveEviction handles pods/{name}/eviction.
func (s *Server) serveEviction(w http.ResponseWriter, r *http.Request, info request.Info, res *registry.Resource) {
	if r.Method != http.MethodPost || info.Name == "" {
		request.WriteStatus(w, r, apistatus.MethodNotAllowed())
		return
	}
	info.Verb = "create"
	if err := s.auth.Authorize(r, info, res); err != nil {
		request.WriteError(w, r, err)
		return
	}
	n, err := request.Negotiate(r, false)
	if err != nil {
		request.WriteError(w, r, err)
		return
	}
	st, err := s.evictRequest(r, info)
	if err != nil {
		request.WriteError(w, r, err)
		return
	}
	request.WriteBody(w, n, int(st.Code), request.Marshal(st))
}

// evictRequest reads an eviction request and performs it, returning the
// Status to answer.
func (s *Server) evictRequest(r *http.Request, info request.Info) (*meta.Status, error) {
	data, err := s.readBodyJSON(r, "Eviction", false)
	if err != nil {
		return nil, err
	}
	ev, err := parseEviction(data)
	if err != nil {
		return nil, err
	}
	if ev.namespace != "" && ev.namespace != info.Namespace {
		return nil, apistatus.BadRequest("the namespace of the provided object does not match the namespace sent on the request")
	}
	if ev.name != info.Name {
		return nil, apistatus.BadRequest("name in URL does not match name in Eviction object")
	}
	query := r.URL.Query()["dryRun"]
	if err := checkDryRun(query); err != nil {
		return nil, apistatus.Invalid("meta.k8s.io", "CreateOptions", "", []apistatus.FieldError{*err})
	}
	switch {
	case len(ev.opts.DryRun) == 0:
		ev.opts.DryRun = query
	case len(query) > 0 && !slices.Equal(query, ev.opts.DryRun):
		return nil, apistatus.New(500, "", fmt.Sprintf("Non-matching dry-run options in request and content: [%s] and [%s]", strings.Join(query, " "), strings.Join(ev.opts.DryRun, " ")))
	}
	if err := validateDeleteOptions(ev.opts); err != nil {
		return nil, err
	}
	return s.evict(r.Context(), info.Namespace, ev.name, ev.opts)
}

// evict evicts one pod: deleted at once when budgets do not apply to it,
// otherwise after taking a disruption from the one budget that selects it.
func (s *Server) evict(ctx context.Context, ns, name string, opts meta.DeleteOptions) (*meta.Status, error) {
	pods := s.registry.Lookup("", "v1", "pods")
	dryRun := len(opts.DryRun) > 0
	pinned := opts.Preconditions != nil && opts.Preconditions.ResourceVersion != nil
	success := &meta.Status{TypeMeta: meta.TypeMeta{Kind: "Status", APIVersion: "v1"}, Status: meta.StatusSuccess, Code: http.StatusCreated}
	var pod *storage.Object
	var doc jsonv.Value
	for attempt := 0; ; attempt++ {
		pod = s.store.Get(pods.StorageKey(), storage.ObjectKey(ns, name))
		if pod == nil {
			return nil, apistatus.NotFound(pods.GR(), name)
		}
		var err error
		if doc, err = pod.Document(); err != nil {
			return nil, err
		}
		deleting := pod.Meta.DeletionTimestamp != nil
		if !builtin.EvictionSkipsBudgets(&doc, deleting) {
			break
		}
		o := opts
		if builtin.EvictionPinsVersion(&doc, deleting) && !pinned {
			o = withVersionPrecondition(opts, pod.Meta.ResourceVersion)
		}
		err = s.markAndDeletePod(ctx, pods, ns, name, o, dryRun)
		if err == nil {
			return success, nil
		}
		if pinned || !isConflict(err) || attempt+1 >= evictionAttempts {
			return nil, err
		}
	}
	budgets, err := s.budgetsFor(pod)
	if err != nil {
		return nil, err
	}
	pinVersion := false
	switch {
	case len(budgets) > 1:
		// The real handler answers this Status (no reason, no details)
		// rather than an error, before reading any budget's status and
		// whether or not it is a dry run.
		st := &meta.Status{TypeMeta: meta.TypeMeta{Kind: "Status", APIVersion: "v1"}, Status: meta.StatusFailure,
			Message: "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.", Code: 500}
		return st, nil
	case len(budgets) == 1:
		budget := budgets[0]
		pdbDoc, err := budget.Document()
		if err != nil {
			return nil, err
		}
		if !builtin.PodReady(&doc) && builtin.UnhealthyPodEvictable(&pdbDoc) {
			pinVersion = true
		} else if err := s.takeDisruption(ctx, budget, name, dryRun); err != nil {
			return nil, err
		}
	}
	o := opts
	if pinVersion {
		o = withVersionPrecondition(opts, pod.Meta.ResourceVersion)
	}
	if err := s.markAndDeletePod(ctx, pods, ns, name, o, dryRun); err != nil {
		if isConflict(err) && pinVersion && !pinned {
			return nil, builtin.BudgetPending(budgets[0].Meta.Name)
		}
		return nil, err
	}
	return success, nil
}

// budgetsFor lists the PodDisruptionBudgets of the pod's namespace that
// select it.
func (s *Server) budgetsFor(pod *storage.Object) ([]*storage.Object, error) {
	pdbs := s.registry.Lookup("policy", "v1", "poddisruptionbudgets")
	if pdbs == nil {
		return nil, nil
	}
	snap, _ := s.store.Current(pdbs.StorageKey())
	var out []*storage.Object
	var firstErr error
	prefix := pod.Meta.Namespace + "/"
	snap.Ascend(prefix, func(key string, b *storage.Object) bool {
		if !strings.HasPrefix(key, prefix) {
			return false
		}
		doc, err := b.Document()
		if err != nil {
			firstErr = err
			return false
		}
		if builtin.BudgetSelects(&doc, pod.Meta.Labels) {
			out = append(out, b)
		}
		return true
	})
	return out, firstErr
}

// takeDisruption takes one disruption from a budget for the pod podName,
// writing the budget's status (as the server itself, "kube-apiserver")
// unless dryRun; a budget that has none to give answers its refusal.
func (s *Server) takeDisruption(ctx context.Context, budget *storage.Object, podName string, dryRun bool) error {
	pdbs := s.registry.Lookup("policy", "v1", "poddisruptionbudgets")
	for attempt := 0; attempt < evictionAttempts; attempt++ {
		if attempt > 0 {
			budget = s.store.Get(pdbs.StorageKey(), budget.Key)
			if budget == nil {
				return apistatus.NotFound(pdbs.GR(), podName)
			}
		}
		doc, err := budget.Document()
		if err != nil {
			return err
		}
		status, refusal := builtin.TakeDisruption(&doc, budget.Meta.Generation, budget.Meta.Name, podName, s.clock.Now(), dryRun)
		if refusal != nil {
			return refusal
		}
		if dryRun {
			return nil
		}
		rest, err := storage.RestOf(budget)
		if err != nil {
			return err
		}
		rest = storage.ReplaceMember(rest, "status", &status)
		next, err := s.prepareUpdate(ctx, pdbs, budget, budget.Meta, rest, "status", "kube-apiserver", budget.APIVersion, false)
		if err != nil || next == nil {
			return err
		}
		if _, err := s.commitUpdate(ctx, pdbs, budget, next); !errors.Is(err, storage.ErrChanged) {
			return err
		}
	}
	return apistatus.New(504, meta.ReasonTimeout, fmt.Sprintf("couldn't update PodDisruptionBudget %q due to conflicts", budget.Meta.Name))
}

// markAndDeletePod adds the DisruptionTarget condition to the pod's status
// (checking opts' preconditions first) and deletes it with opts, as the
// real eviction does; a dry run only deletes, in dry-run.
func (s *Server) markAndDeletePod(ctx context.Context, pods *registry.Resource, ns, name string, opts meta.DeleteOptions, dryRun bool) error {
	if !dryRun {
		obj, err := s.markDisruptionTarget(ctx, pods, ns, name, opts)
		if err != nil {
			return err
		}
		if opts.Preconditions != nil && opts.Preconditions.ResourceVersion != nil {
			opts = withVersionPrecondition(opts, obj.Meta.ResourceVersion)
		}
	}
	_, _, err := s.delete(ctx, pods, ns, name, opts)
	return err
}

// markDisruptionTarget writes the pod's DisruptionTarget=True condition
// (reason EvictionByEvictionAPI) without touching its managedFields.
func (s *Server) markDisruptionTarget(ctx context.Context, pods *registry.Resource, ns, name string, opts meta.DeleteOptions) (*storage.Object, error) {
	for attempt := 0; attempt < evictionAttempts; attempt++ {
		cur := s.store.Get(pods.StorageKey(), storage.ObjectKey(ns, name))
		if cur == nil {
			return nil, apistatus.NotFound(pods.GR(), name)
		}
		if err := checkPreconditions(apistatus.GroupResource{Resource: "Pod"}, cur, name, opts); err != nil {
			return nil, err
		}
		rest, err := storage.RestOf(cur)
		if err != nil {
			return nil, err
		}
		status := jsonv.NewObject()
		if st := storage.FindMember(rest, "status"); st != nil && st.Kind == jsonv.Object {
			status = st.Clone()
		}
		builtin.SetPodCondition(&status, "DisruptionTarget", "True", "EvictionByEvictionAPI", "Eviction API: evicting", s.clock.Now())
		rest = storage.ReplaceMember(rest, "status", &status)
		managed := cur.Meta.ManagedFields
		if managed == nil {
			managed = meta.ManagedFields{}
		}
		next, err := s.prepareUpdateManaged(ctx, pods, cur, cur.Meta, rest, "status", "", cur.APIVersion, managed, false)
		if err != nil {
			return nil, err
		}
		if next == nil {
			return cur, nil
		}
		obj, err := s.commitUpdate(ctx, pods, cur, next)
		if !errors.Is(err, storage.ErrChanged) {
			return obj, err
		}
	}
	return nil, apistatus.Conflict(pods.GR(), name, apistatus.MsgModified)
}

// withVersionPrecondition returns opts requiring resourceVersion rv.
func withVersionPrecondition(opts meta.DeleteOptions, rv string) meta.DeleteOptions {
	p := meta.Preconditions{}
	if opts.Preconditions != nil {
		p = *opts.Preconditions
	}
	p.ResourceVersion = &rv
	opts.Preconditions = &p
	return opts
}

// isConflict reports a 409.
func isConflict(err error) bool {
	var st *meta.Status
	return errors.As(err, &st) && st.Code == http.StatusConflict
}
