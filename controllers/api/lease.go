package api

import "github.com/kubecache/kubecache/informer/leaderelection"

// Lease is a coordination.k8s.io/v1 Lease; nodes renew one each in the
// kube-node-lease namespace to say they are alive.
type Lease = leaderelection.Lease

// NodeLeaseNamespace is where nodes keep their Leases.
const NodeLeaseNamespace = "kube-node-lease"
