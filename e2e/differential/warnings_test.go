package differential

import (
	"strings"
	"testing"
)

// warnTemplate is a pod template whose spec draws two warnings (an rbd
// volume, an environment variable defined twice), with volumes given.
func warnTemplate(volumes string) string {
	return `{"metadata":{"labels":{"app":"w"}},"spec":{"containers":[{"name":"c","image":"x","env":[{"name":"A","value":"1"},{"name":"A","value":"2"}]}],"volumes":` + volumes + `}}`
}

const rbdVolumes = `[{"name":"r","rbd":{"monitors":["m"],"image":"i"}}]`

// TestUpdateWarnings compares the Warning headers of updates: a label
// change, a spec change, a no-op update and a merge patch of each kind
// whose strategy warns on update, as the real strategies decide (the
// workloads only when the generation changes, a DaemonSet when its
// template does, a Service and a StatefulSet's revisionHistoryLimit
// always, a Pod never, a ReplicationController about its stored
// template).
func TestUpdateWarnings(t *testing.T) {
	s := pair(t)
	t.Parallel()
	c := s.NewCase(t, "e2e-update-warnings")
	apps := "/apis/apps/v1/namespaces/{ns}/"
	core := "/api/v1/namespaces/{ns}/"
	tmpl := warnTemplate(rbdVolumes)
	tmplChanged := strings.Replace(tmpl, `"app":"w"`, `"app":"w","z":"1"`, 1)
	rows := []struct {
		name, path, body, labelled, changed string
	}{
		{"replicationcontroller", core + "replicationcontrollers/w",
			`{"apiVersion":"v1","kind":"ReplicationController","metadata":{"name":"w"},"spec":{"replicas":0,"selector":{"app":"w"},"template":` + tmpl + `}}`,
			"", `{"apiVersion":"v1","kind":"ReplicationController","metadata":{"name":"w"},"spec":{"replicas":0,"selector":{"app":"w"},"template":` + warnTemplate("[]") + `}}`},
		{"deployment", apps + "deployments/w",
			`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"w"},"spec":{"replicas":0,"selector":{"matchLabels":{"app":"w"}},"template":` + tmpl + `}}`,
			"", `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"w"},"spec":{"replicas":1,"selector":{"matchLabels":{"app":"w"}},"template":` + tmpl + `}}`},
		{"daemonset, not its template", apps + "daemonsets/w",
			`{"apiVersion":"apps/v1","kind":"DaemonSet","metadata":{"name":"w"},"spec":{"selector":{"matchLabels":{"app":"w"}},"template":` + tmpl + `}}`,
			"", `{"apiVersion":"apps/v1","kind":"DaemonSet","metadata":{"name":"w"},"spec":{"minReadySeconds":3,"selector":{"matchLabels":{"app":"w"}},"template":` + tmpl + `}}`},
		{"daemonset template", apps + "daemonsets/w2",
			`{"apiVersion":"apps/v1","kind":"DaemonSet","metadata":{"name":"w2"},"spec":{"selector":{"matchLabels":{"app":"w"}},"template":` + tmpl + `}}`,
			"", `{"apiVersion":"apps/v1","kind":"DaemonSet","metadata":{"name":"w2"},"spec":{"selector":{"matchLabels":{"app":"w"}},"template":` + tmplChanged + `}}`},
		{"statefulset", apps + "statefulsets/w",
			`{"apiVersion":"apps/v1","kind":"StatefulSet","metadata":{"name":"w"},"spec":{"replicas":0,"revisionHistoryLimit":-1,"serviceName":"s","selector":{"matchLabels":{"app":"w"}},"template":` + tmpl + `}}`,
			"", `{"apiVersion":"apps/v1","kind":"StatefulSet","metadata":{"name":"w"},"spec":{"replicas":1,"revisionHistoryLimit":-1,"serviceName":"s","selector":{"matchLabels":{"app":"w"}},"template":` + tmpl + `}}`},
		{"service", core + "services/w",
			`{"apiVersion":"v1","kind":"Service","metadata":{"name":"w"},"spec":{"clusterIP":"None","selector":{"app":"w"},"externalIPs":["192.0.2.1"],"ports":[{"port":80}]}}`,
			"", `{"apiVersion":"v1","kind":"Service","metadata":{"name":"w"},"spec":{"clusterIP":"None","selector":{"app":"w"},"externalIPs":["192.0.2.2"],"ports":[{"port":80}]}}`},
		{"pod", core + "pods/w",
			`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"w"},"spec":` + strings.TrimSuffix(strings.SplitN(tmpl, `"spec":`, 2)[1], "}") + `}`,
			"", ""},
		{"podtemplate", core + "podtemplates/w",
			`{"apiVersion":"v1","kind":"PodTemplate","metadata":{"name":"w"},"template":` + tmpl + `}`,
			"", `{"apiVersion":"v1","kind":"PodTemplate","metadata":{"name":"w"},"template":` + tmplChanged + `}`},
	}
	// The real server records no managedFields entry for a variable
	// defined twice, the fake server one; the rows are about the
	// warnings.
	opts := CompareOptions{IgnorePaths: []string{"metadata.managedFields"}}
	for _, r := range rows {
		collection := r.path[:strings.LastIndex(r.path, "/")]
		c.Compare(r.name+": create", post(collection, r.body), opts)
		labelled := strings.Replace(r.body, `"metadata":{"name":`, `"metadata":{"labels":{"x":"1"},"name":`, 1)
		c.Compare(r.name+": label update", put(r.path, labelled), opts)
		c.Compare(r.name+": no-op update", put(r.path, labelled), opts)
		c.Compare(r.name+": merge patch of a label", patch(r.path, "application/merge-patch+json", `{"metadata":{"labels":{"y":"2"}}}`), opts)
		if r.changed != "" {
			c.Compare(r.name+": spec update", put(r.path, r.changed), opts)
		}
	}
}
