package builtin

import (
	"encoding/base64"
	"maps"
	"strconv"
	"time"

	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
	"github.com/kubecache/kubecache/meta"
)

// Env is what the registry rules need from the server beyond the object.
type Env struct {
	// Now is the time of the write (PersistentVolume phase transitions).
	Now time.Time
	// Priority finds priority classes for new Pods; nil knows none.
	Priority PriorityLookup
	// RuntimeClass finds runtime classes for new Pods; nil knows none.
	RuntimeClass RuntimeClassLookup
	// NoNodeTaint leaves out the not-ready taint a new Node gets from the
	// TaintNodesByCondition plugin, for a server whose caller runs no node
	// lifecycle controller to remove it once the Node is Ready.
	NoNodeTaint bool
}

// Forbidden is an admission plugin's refusal: the server answers 403
// Forbidden with `<resource> "<name>" is forbidden: ` and Message.
type Forbidden struct {
	Message string
}

func (f *Forbidden) Error() string { return f.Message }

// PrepareCreate applies to a new object what the real server's registry
// and default admission plugins do after defaulting (call Default first):
// Secret stringData merged into data; a Job's selector and pod labels
// generated from its uid (m.UID must be set); the pod spec fields of
// gates off in 1.37 dropped from a Pod and every pod template; a Pod's
// AppArmor annotations copied into its containers' empty profiles, its
// pod-level requests and limits completed, its status (Pending and its
// QoS class), default tolerations and priority; the protection
// finalizers of claims and volumes; a new Node's not-ready taint (and no
// configSource); a Namespace's Active phase and kubernetes finalizer; a
// ServiceAccount's secrets held by name only. The
// status reset of kinds with a status subresource is the server's. It
// returns a *Forbidden when an admission plugin refuses the object.
func PrepareCreate(group, kind string, m *meta.ObjectMeta, obj *jsonv.Value, env Env) error {
	if obj == nil || obj.Kind != jsonv.Object {
		return nil
	}
	dropDisabledPodSpecFields(podSpecOf(group, kind, obj))
	switch group + "/" + kind {
	case "/Secret":
		mergeStringData(obj)
	case "resource.k8s.io/ResourceSlice":
		dropDisabledSliceFields(obj, nil)
	case "batch/Job":
		generateJobSelector(m, obj)
	case "/Pod":
		if spec := present(obj, "spec"); spec != nil {
			syncAppArmorAnnotations(m, spec)
			defaultPodLevelResources(spec)
		}
		podStatusOnCreate(obj)
		if spec := present(obj, "spec"); spec != nil {
			if m != nil {
				mergeMatchLabelKeys(m.Labels, spec)
			}
			defaultTolerations(spec)
			if msg := admitPriority(spec, env.Priority); msg != "" {
				return &Forbidden{Message: msg}
			}
			if msg := admitRuntimeClass(spec, env.RuntimeClass); msg != "" {
				return &Forbidden{Message: msg}
			}
		}
	case "/PersistentVolumeClaim":
		addFinalizer(m, "kubernetes.io/pvc-protection")
	case "/PersistentVolume":
		addFinalizer(m, "kubernetes.io/pv-protection")
		if status := child(obj, "status"); status != nil && unset(status, "lastPhaseTransitionTime") {
			status.Set("lastPhaseTransitionTime", jsonv.NewString(env.Now.UTC().Format(time.RFC3339)))
		}
	case "/Node":
		// Nodes no longer take a dynamic kubelet configuration: the real
		// registry drops its reference on create.
		sub(obj, "spec").Delete("configSource")
		sub(obj, "status").Delete("config")
		if !env.NoNodeTaint {
			nodeNotReadyTaint(obj)
		}
	case "/Namespace":
		namespaceOnCreate(obj)
	case "/ServiceAccount":
		cleanSecretReferences(obj)
	}
	return nil
}

// cleanSecretReferences keeps only the name of each secret a
// ServiceAccount lists, as the real registry does.
func cleanSecretReferences(obj *jsonv.Value) {
	each(obj, "secrets", func(ref *jsonv.Value) {
		name := ref.Get("name")
		keep := jsonv.NewObject()
		if name != nil {
			keep.Set("name", name.Clone())
		}
		*ref = keep
	})
}

// namespaceOnCreate sets a new Namespace's phase to Active and adds the
// kubernetes finalizer to its spec, as the real registry does.
func namespaceOnCreate(obj *jsonv.Value) {
	obj.Set("status", object(jsonv.Member{Key: "phase", Value: jsonv.NewString("Active")}))
	spec := child(obj, "spec")
	if spec == nil {
		return
	}
	found := false
	fins := spec.Get("finalizers")
	if fins != nil && fins.Kind == jsonv.Array {
		for _, f := range fins.Arr {
			if f.Str == "kubernetes" {
				found = true
			}
		}
	}
	if found {
		return
	}
	if fins != nil && fins.Kind == jsonv.Array {
		fins.Arr = append(fins.Arr, jsonv.NewString("kubernetes"))
		return
	}
	spec.Set("finalizers", stringArray("kubernetes"))
}

// PrepareUpdate applies the registry rules of an update: Secret
// stringData merged into data; the gated pod spec fields dropped, as on
// create; a Pod keeps the priority it was admitted with and its
// pod-level resources when the update omits them; a Namespace keeps its
// finalizers; a ServiceAccount's secrets are held by name only.
func PrepareUpdate(group, kind string, obj, old *jsonv.Value) {
	if obj == nil || obj.Kind != jsonv.Object {
		return
	}
	dropDisabledPodSpecFields(podSpecOf(group, kind, obj))
	switch group + "/" + kind {
	case "/Secret":
		mergeStringData(obj)
	case "/ServiceAccount":
		cleanSecretReferences(obj)
	case "resource.k8s.io/ResourceSlice":
		dropDisabledSliceFields(obj, old)
	case "/Namespace":
		// Only the finalize subresource changes a Namespace's
		// finalizers; an update keeps the stored ones.
		if spec := child(obj, "spec"); spec != nil {
			spec.Delete("finalizers")
			if f := sub(old, "spec").Get("finalizers"); f != nil {
				spec.Set("finalizers", f.Clone())
			}
		}
	case "/Service":
		if spec, oldSpec := present(obj, "spec"), present(old, "spec"); spec != nil && oldSpec != nil {
			dropTypeDependentFields(spec, oldSpec)
		}
	case "/Node":
		if unset(sub(old, "spec"), "configSource") {
			sub(obj, "spec").Delete("configSource")
		}
	case "/Pod":
		spec, oldSpec := present(obj, "spec"), present(old, "spec")
		if spec == nil || oldSpec == nil {
			return
		}
		// An update that leaves the pod-level resources out, as a client
		// that does not know them sends it, keeps the stored ones.
		for _, key := range []string{"priority", "preemptionPolicy", "resources"} {
			if unset(spec, key) && !unset(oldSpec, key) {
				spec.Set(key, oldSpec.Get(key).Clone())
			}
		}
		// DefaultTolerationSeconds admits updates too: an update that
		// leaves the tolerations out gets them back.
		defaultTolerations(spec)
	}
}

// mergeStringData moves a Secret's stringData into data, base64-encoded,
// a stringData key winning over the same data key, as the real server's
// conversion does; stringData is never stored.
func mergeStringData(obj *jsonv.Value) {
	sd := obj.Get("stringData")
	if sd == nil {
		return
	}
	var add []jsonv.Member
	if sd.Kind == jsonv.Object {
		for _, m := range sd.Obj {
			if m.Value.Kind == jsonv.String {
				add = append(add, jsonv.Member{Key: m.Key, Value: jsonv.NewString(base64.StdEncoding.EncodeToString([]byte(m.Value.Str)))})
			}
		}
	}
	obj.Delete("stringData")
	if len(add) == 0 {
		return
	}
	data := child(obj, "data")
	if data == nil {
		return
	}
	for _, m := range add {
		data.Set(m.Key, m.Value)
	}
}

// generateJobSelector gives a Job without manualSelector its selector on
// the controller-uid label and labels its pod template with the job name
// and uid (the legacy label names too). The real server's Job took its
// labels from the template as the same map, so labels copied that way get
// the generated ones as well.
func generateJobSelector(m *meta.ObjectMeta, obj *jsonv.Value) {
	spec := present(obj, "spec")
	if spec == nil {
		return
	}
	if ms := spec.Get("manualSelector"); ms != nil && ms.Kind == jsonv.Bool && ms.B {
		return
	}
	template := child(spec, "template")
	if template == nil {
		return
	}
	md := child(template, "metadata")
	if md == nil {
		return
	}
	aliased := m != nil && len(m.Labels) > 0 && maps.Equal(m.Labels, stringMap(md, "labels"))
	labels := child(md, "labels")
	if labels == nil {
		return
	}
	uid := ""
	name := ""
	if m != nil {
		uid, name = m.UID, m.Name
	}
	generated := []jsonv.Member{
		{Key: "batch.kubernetes.io/controller-uid", Value: jsonv.NewString(uid)},
		{Key: "batch.kubernetes.io/job-name", Value: jsonv.NewString(name)},
		{Key: "controller-uid", Value: jsonv.NewString(uid)},
		{Key: "job-name", Value: jsonv.NewString(name)},
	}
	for _, g := range generated {
		if labels.Get(g.Key) == nil {
			labels.Set(g.Key, g.Value)
			if aliased {
				m.Labels[g.Key] = g.Value.Str
			}
		}
	}
	if sel := child(spec, "selector"); sel != nil {
		if ml := child(sel, "matchLabels"); ml != nil && ml.Get("batch.kubernetes.io/controller-uid") == nil {
			ml.Set("batch.kubernetes.io/controller-uid", jsonv.NewString(uid))
		}
	}
}

// addFinalizer appends f to the object's finalizers unless present.
func addFinalizer(m *meta.ObjectMeta, f string) {
	if m == nil {
		return
	}
	for _, have := range m.Finalizers {
		if have == f {
			return
		}
	}
	m.Finalizers = append(m.Finalizers, f)
}

// nodeNotReadyTaint adds the not-ready NoSchedule taint a new Node gets
// from the TaintNodesByCondition plugin.
func nodeNotReadyTaint(obj *jsonv.Value) {
	spec := child(obj, "spec")
	if spec == nil {
		return
	}
	found := false
	each(spec, "taints", func(t *jsonv.Value) {
		if str(t, "key") == "node.kubernetes.io/not-ready" && str(t, "effect") == "NoSchedule" {
			found = true
		}
	})
	if found {
		return
	}
	taint := object(
		jsonv.Member{Key: "key", Value: jsonv.NewString("node.kubernetes.io/not-ready")},
		jsonv.Member{Key: "effect", Value: jsonv.NewString("NoSchedule")},
	)
	if tl := spec.Get("taints"); tl != nil && tl.Kind == jsonv.Array {
		tl.Arr = append(tl.Arr, taint)
		return
	}
	spec.Set("taints", jsonv.Value{Kind: jsonv.Array, Arr: []jsonv.Value{taint}})
}

// templateGenerationKey is the annotation a DaemonSet's template
// generation is served in.
const templateGenerationKey = "deprecated.daemonset.template.generation"

// DaemonSetTemplateGeneration sets an updated DaemonSet's template
// generation annotation as the real registry does: the stored one's
// (oldAnnotations), one more when the update changes the pod template;
// what the client sent there does not count.
func DaemonSetTemplateGeneration(m *meta.ObjectMeta, oldAnnotations map[string]string, obj, old *jsonv.Value) {
	gen, err := strconv.ParseInt(oldAnnotations[templateGenerationKey], 10, 64)
	if err != nil {
		gen = 0
	}
	if !jsonv.Equal(valueOr(sub2(obj, "spec").Get("template")), valueOr(sub2(old, "spec").Get("template"))) {
		gen++
	}
	if m.Annotations == nil {
		m.Annotations = map[string]string{}
	}
	m.Annotations[templateGenerationKey] = strconv.FormatInt(gen, 10)
}
