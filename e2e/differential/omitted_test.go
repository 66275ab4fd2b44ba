package differential

import (
	"context"
	"testing"
	"time"
)

// TestOmittedZeros writes built-in objects whose non-pointer scalar
// fields with omitempty hold their zero value ("", 0, false, or null),
// by create, update, merge and strategic merge patch, server-side apply
// and status writes: the real server's Go types drop them, so neither
// the stored object nor the managedFields of an ordinary write carry
// them, while an applied configuration owns the fields it names. Pointer
// scalars keep their zero; a status write's never-omitted fields (a
// condition's null times) appear. The Service has a fixed cluster IP of its own and is
// deleted at the end (addresses are cluster-wide).
func TestOmittedZeros(t *testing.T) {
	s := pair(t)
	t.Parallel()
	c := s.NewCase(t, "e2e-omitted-zeros")
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		c.both(func(s *Side) {
			if _, err := s.Do(ctx, del(svcs+"/zeros")); err != nil {
				t.Logf("delete service zeros on %s: %v", s.Name, err)
			}
		})
	})
	c.Compare("create a Service with zero scalars",
		post(svcs+"?fieldManager=creator", `{"apiVersion":"v1","kind":"Service","metadata":{"name":"zeros"},"spec":{"clusterIP":"10.96.202.1",
			"sessionAffinity":"","publishNotReadyAddresses":false,"loadBalancerIP":null,"ports":[{"name":"","port":80,"nodePort":0,"protocol":null}]}}`))
	c.Compare("update with an empty clusterIP and port name",
		put(svcs+"/zeros?fieldManager=updater", `{"apiVersion":"v1","kind":"Service","metadata":{"name":"zeros"},"spec":{"clusterIP":"","type":"ClusterIP",
			"externalName":"","ports":[{"name":"","port":80,"targetPort":8080,"protocol":"TCP"}]}}`))
	c.Compare("merge patch of zero scalars",
		patch(svcs+"/zeros?fieldManager=merger", "application/merge-patch+json",
			`{"spec":{"healthCheckNodePort":0,"loadBalancerIP":"","ports":[{"name":"","port":80,"targetPort":8081}]}}`))
	c.Compare("strategic merge patch of zero scalars only",
		patch(svcs+"/zeros?fieldManager=strategic", "application/strategic-merge-patch+json",
			`{"spec":{"externalTrafficPolicy":"","ports":[{"name":"","port":80}]}}`))
	c.Compare("apply names zero scalars",
		patch(svcs+"/zeros?fieldManager=applier&force=true", "application/apply-patch+yaml",
			`{"apiVersion":"v1","kind":"Service","metadata":{"name":"zeros"},"spec":{"clusterIP":"","sessionAffinity":"","ports":[{"name":"","port":80,"protocol":"TCP"}]}}`))

	const deploys = "/apis/apps/v1/namespaces/{ns}/deployments"
	c.Compare("create a Deployment with zero scalars and zero pointers",
		post(deploys+"?fieldManager=creator", `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"zeros"},"spec":{"replicas":0,"paused":false,
			"minReadySeconds":0,"selector":{"matchLabels":{"app":"zeros"}},"template":{"metadata":{"name":"","labels":{"app":"zeros"}},
			"spec":{"hostname":"","hostNetwork":false,"terminationGracePeriodSeconds":0,"containers":[{"name":"c","image":"x","tty":false,
			"ports":[{"name":"","containerPort":80,"hostPort":0}]}]}}}}`))
	c.Compare("update the Deployment with zero scalars",
		put(deploys+"/zeros?fieldManager=updater", `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"zeros"},"spec":{"replicas":1,
			"selector":{"matchLabels":{"app":"zeros"}},"template":{"metadata":{"labels":{"app":"zeros"}},"spec":{"subdomain":"","dnsPolicy":"",
			"containers":[{"name":"c","image":"y","workingDir":"","stdin":false,"ports":[{"name":"","containerPort":80,"hostIP":""}]}]}}}}`))
	c.Compare("a status update with zero scalars",
		put(deploys+"/zeros/status?fieldManager=status", `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"zeros"},"spec":{
			"selector":{"matchLabels":{"app":"zeros"}},"template":{"metadata":{"labels":{"app":"zeros"}},"spec":{"containers":[{"name":"c","image":"y"}]}}},
			"status":{"replicas":0,"observedGeneration":0,"readyReplicas":0,"conditions":[{"type":"Available","status":"True","reason":"","message":"","lastUpdateTime":null}]}}`))
	c.Compare("a status merge patch with zero scalars",
		patch(deploys+"/zeros/status?fieldManager=status2", "application/merge-patch+json",
			`{"status":{"replicas":2,"unavailableReplicas":0,"conditions":[{"type":"Available","status":"False","reason":"","message":"m"},{"type":"Progressing","status":"True"}]}}`))
	const pods = "/api/v1/namespaces/{ns}/pods"
	c.Setup(post(pods, `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"zeros"},"spec":{"containers":[{"name":"c","image":"x"}]}}`))
	c.Compare("a pod status patch with zero scalars",
		patch(pods+"/zeros/status?fieldManager=kubelet", "application/strategic-merge-patch+json",
			`{"status":{"phase":"Running","hostIP":"","message":"","nominatedNodeName":"","containerStatuses":[{"name":"c","ready":false,"restartCount":0,
			"image":"x","imageID":"","containerID":"","started":false,"state":{"running":{}}}]}}`))
}
