package differential

import (
	"context"
	"testing"
	"time"
)

// svcs is the Services collection of a case's namespace.
const svcs = "/api/v1/namespaces/{ns}/services"

// service is a Service body with a fixed cluster IP, of type typ, whose
// ports are 80, 81, … with the node ports given (0: none asked).
func service(name, clusterIP, typ string, nodePorts ...string) string {
	ports := ""
	for i, np := range nodePorts {
		if i > 0 {
			ports += ","
		}
		ports += `{"port":8` + string(rune('0'+i))
		if np != "0" {
			ports += `,"nodePort":` + np
		}
		ports += "}"
	}
	return `{"apiVersion":"v1","kind":"Service","metadata":{"name":"` + name + `"},"spec":{"type":"` + typ +
		`","clusterIP":"` + clusterIP + `","ports":[` + ports + `]}}`
}

// TestServiceDryRun checks that dry-run writes of Services answer with
// their would-be addresses and keep none: the node ports and cluster IP
// the dry runs name can be taken afterwards. Cluster IPs and node ports
// are cluster-wide, so the rows use fixed ones of their own and delete
// their Services (a real server without a namespace controller never
// empties a deleted namespace).
func TestServiceDryRun(t *testing.T) {
	s := pair(t)
	t.Parallel()
	c := s.NewCase(t, "e2e-svc-dryrun")
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		c.both(func(s *Side) {
			for _, n := range []string{"np", "taken"} {
				if _, err := s.Do(ctx, del(svcs+"/"+n)); err != nil {
					t.Logf("delete service %s on %s: %v", n, s.Name, err)
				}
			}
		})
	})
	c.Setup(post(svcs, service("np", "10.96.201.1", "ClusterIP", "0")))
	c.Compare("dry-run update to NodePort picks a placeholder port",
		put(svcs+"/np?dryRun=All", service("np", "10.96.201.1", "NodePort", "0")))
	c.Compare("dry-run update to NodePort with a requested port",
		put(svcs+"/np?dryRun=All", service("np", "10.96.201.1", "NodePort", "31901")))
	c.Compare("dry-run merge patch to NodePort",
		patch(svcs+"/np?dryRun=All", "application/merge-patch+json", `{"spec":{"type":"NodePort","ports":[{"port":80,"nodePort":31902}]}}`))
	c.Compare("dry-run create with a requested cluster IP and node port",
		post(svcs+"?dryRun=All", service("dry", "10.96.201.2", "NodePort", "31903")))
	c.Compare("the Service is unchanged", get(svcs+"/np"))
	c.Compare("the ports and the address the dry runs named are free",
		post(svcs, service("taken", "10.96.201.2", "NodePort", "31901", "31902", "31903")))
	c.Compare("dry-run create of a held node port is refused",
		post(svcs+"?dryRun=All", service("dry", "10.96.201.3", "NodePort", "31901")))
	c.Compare("dry-run create of a held cluster IP is not checked",
		post(svcs+"?dryRun=All", service("dry", "10.96.201.2", "ClusterIP", "0")))
}
