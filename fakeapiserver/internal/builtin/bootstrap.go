package builtin

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
)

// bootstrapJSON holds the objects a fresh real kube-apiserver v1.37.2
// (without a controller manager) serves at start, as it listed them: the
// four system namespaces, the kubernetes Service and ServiceCIDR, the
// system priority classes, the bootstrap RBAC roles and bindings and the
// flow-control configuration. Server-specific values are zeroed: the
// Service's targetPort and the conditions' transition times.
//
//go:embed bootstrap.json
var bootstrapJSON []byte

// BootstrapObject is one object of Bootstrap: its kind and where it is
// stored, and the object without uid, resourceVersion and
// creationTimestamp, which the server assigns.
type BootstrapObject struct {
	APIVersion, Kind string
	Namespace, Name  string
	// Object is the whole object (kind, apiVersion, metadata and the
	// rest).
	Object jsonv.Value
}

// Group returns the object's API group ("" for core).
func (b BootstrapObject) Group() string {
	g, _, ok := strings.Cut(b.APIVersion, "/")
	if !ok {
		return ""
	}
	return g
}

// Bootstrap returns the objects a fresh real API server creates for
// itself, in the order it lists them (namespaces first). port is the
// server's own port (the kubernetes Service's targetPort), serviceIP the
// kubernetes Service's cluster IP and cidr the service CIDR; now dates
// the conditions.
func Bootstrap(port int, serviceIP, cidr string, now time.Time) ([]BootstrapObject, error) {
	var raw []json.RawMessage
	if err := json.Unmarshal(bootstrapJSON, &raw); err != nil {
		return nil, fmt.Errorf("bootstrap objects: %w", err)
	}
	stamp := jsonv.NewString(now.UTC().Format(time.RFC3339))
	out := make([]BootstrapObject, 0, len(raw))
	for _, r := range raw {
		res, err := jsonv.Parse(r)
		if err != nil {
			return nil, fmt.Errorf("bootstrap objects: %w", err)
		}
		obj := res.Value
		b := BootstrapObject{APIVersion: str(&obj, "apiVersion"), Kind: str(&obj, "kind"), Object: obj}
		if md := present(&obj, "metadata"); md != nil {
			b.Namespace, b.Name = str(md, "namespace"), str(md, "name")
		}
		switch b.Kind {
		case "Service":
			if spec := present(&b.Object, "spec"); spec != nil {
				spec.Set("clusterIP", jsonv.NewString(serviceIP))
				spec.Set("clusterIPs", stringArray(serviceIP))
				each(spec, "ports", func(p *jsonv.Value) { p.Set("targetPort", number(int64(port))) })
			}
		case "ServiceCIDR":
			if spec := present(&b.Object, "spec"); spec != nil {
				spec.Set("cidrs", stringArray(cidr))
			}
		}
		if status := present(&b.Object, "status"); status != nil {
			each(status, "conditions", func(c *jsonv.Value) { c.Set("lastTransitionTime", stamp) })
		}
		out = append(out, b)
	}
	return out, nil
}
