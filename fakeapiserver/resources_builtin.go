package fakeapiserver

// builtinResources is the real server's resource table. It is a starting
// subset until the generator in internal/gen replaces it with the table
// read from the captured discovery documents of a real kube-apiserver.
var builtinResources = []Resource{
	{Group: "", Version: "v1", Name: "configmaps", Singular: "configmap", Kind: "ConfigMap", Namespaced: true, Verbs: allVerbs, ShortNames: []string{"cm"}},
	{Group: "", Version: "v1", Name: "endpoints", Singular: "endpoints", Kind: "Endpoints", Namespaced: true, Verbs: allVerbs, ShortNames: []string{"ep"}},
	{Group: "", Version: "v1", Name: "events", Singular: "event", Kind: "Event", Namespaced: true, Verbs: allVerbs, ShortNames: []string{"ev"}},
	{Group: "", Version: "v1", Name: "namespaces", Singular: "namespace", Kind: "Namespace", Verbs: []string{"create", "delete", "get", "list", "patch", "update", "watch"}, ShortNames: []string{"ns"}, Subresources: []Subresource{{Name: "finalize", Kind: "Namespace", Verbs: []string{"update"}}, {Name: "status", Kind: "Namespace", Verbs: []string{"get", "patch", "update"}}}},
	{Group: "", Version: "v1", Name: "nodes", Singular: "node", Kind: "Node", Verbs: allVerbs, ShortNames: []string{"no"}, Subresources: []Subresource{{Name: "proxy", Kind: "NodeProxyOptions", Verbs: []string{"create", "delete", "get", "patch", "update"}}, {Name: "status", Kind: "Node", Verbs: []string{"get", "patch", "update"}}}},
	{Group: "", Version: "v1", Name: "persistentvolumeclaims", Singular: "persistentvolumeclaim", Kind: "PersistentVolumeClaim", Namespaced: true, Verbs: allVerbs, ShortNames: []string{"pvc"}, Subresources: []Subresource{{Name: "status", Kind: "PersistentVolumeClaim", Verbs: []string{"get", "patch", "update"}}}},
	{Group: "", Version: "v1", Name: "persistentvolumes", Singular: "persistentvolume", Kind: "PersistentVolume", Verbs: allVerbs, ShortNames: []string{"pv"}, Subresources: []Subresource{{Name: "status", Kind: "PersistentVolume", Verbs: []string{"get", "patch", "update"}}}},
	{Group: "", Version: "v1", Name: "pods", Singular: "pod", Kind: "Pod", Namespaced: true, Verbs: allVerbs, ShortNames: []string{"po"}, Categories: []string{"all"}, Subresources: []Subresource{{Name: "status", Kind: "Pod", Verbs: []string{"get", "patch", "update"}}}},
	{Group: "", Version: "v1", Name: "secrets", Singular: "secret", Kind: "Secret", Namespaced: true, Verbs: allVerbs},
	{Group: "", Version: "v1", Name: "serviceaccounts", Singular: "serviceaccount", Kind: "ServiceAccount", Namespaced: true, Verbs: allVerbs, ShortNames: []string{"sa"}},
	{Group: "", Version: "v1", Name: "services", Singular: "service", Kind: "Service", Namespaced: true, Verbs: allVerbs, ShortNames: []string{"svc"}, Categories: []string{"all"}, Subresources: []Subresource{{Name: "status", Kind: "Service", Verbs: []string{"get", "patch", "update"}}}},
	{Group: "apps", Version: "v1", Name: "daemonsets", Singular: "daemonset", Kind: "DaemonSet", Namespaced: true, Verbs: allVerbs, ShortNames: []string{"ds"}, Categories: []string{"all"}, Subresources: []Subresource{{Name: "status", Kind: "DaemonSet", Verbs: []string{"get", "patch", "update"}}}},
	{Group: "apps", Version: "v1", Name: "deployments", Singular: "deployment", Kind: "Deployment", Namespaced: true, Verbs: allVerbs, ShortNames: []string{"deploy"}, Categories: []string{"all"}, Subresources: []Subresource{{Name: "scale", Group: "autoscaling", Version: "v1", Kind: "Scale", Verbs: []string{"get", "patch", "update"}}, {Name: "status", Kind: "Deployment", Verbs: []string{"get", "patch", "update"}}}},
	{Group: "apps", Version: "v1", Name: "replicasets", Singular: "replicaset", Kind: "ReplicaSet", Namespaced: true, Verbs: allVerbs, ShortNames: []string{"rs"}, Categories: []string{"all"}, Subresources: []Subresource{{Name: "scale", Group: "autoscaling", Version: "v1", Kind: "Scale", Verbs: []string{"get", "patch", "update"}}, {Name: "status", Kind: "ReplicaSet", Verbs: []string{"get", "patch", "update"}}}},
	{Group: "apps", Version: "v1", Name: "statefulsets", Singular: "statefulset", Kind: "StatefulSet", Namespaced: true, Verbs: allVerbs, ShortNames: []string{"sts"}, Categories: []string{"all"}, Subresources: []Subresource{{Name: "scale", Group: "autoscaling", Version: "v1", Kind: "Scale", Verbs: []string{"get", "patch", "update"}}, {Name: "status", Kind: "StatefulSet", Verbs: []string{"get", "patch", "update"}}}},
	{Group: "batch", Version: "v1", Name: "cronjobs", Singular: "cronjob", Kind: "CronJob", Namespaced: true, Verbs: allVerbs, ShortNames: []string{"cj"}, Categories: []string{"all"}, Subresources: []Subresource{{Name: "status", Kind: "CronJob", Verbs: []string{"get", "patch", "update"}}}},
	{Group: "batch", Version: "v1", Name: "jobs", Singular: "job", Kind: "Job", Namespaced: true, Verbs: allVerbs, Categories: []string{"all"}, Subresources: []Subresource{{Name: "status", Kind: "Job", Verbs: []string{"get", "patch", "update"}}}},
	{Group: "coordination.k8s.io", Version: "v1", Name: "leases", Singular: "lease", Kind: "Lease", Namespaced: true, Verbs: allVerbs},
	{Group: "apiextensions.k8s.io", Version: "v1", Name: "customresourcedefinitions", Singular: "customresourcedefinition", Kind: "CustomResourceDefinition", Verbs: allVerbs, ShortNames: []string{"crd", "crds"}, Categories: []string{"api-extensions"}, Subresources: []Subresource{{Name: "status", Kind: "CustomResourceDefinition", Verbs: []string{"get", "patch", "update"}}}},
	{Group: "events.k8s.io", Version: "v1", Name: "events", Singular: "event", Kind: "Event", Namespaced: true, Verbs: allVerbs, ShortNames: []string{"ev"}},
}

var allVerbs = []string{"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"}
