package admission

import (
	"github.com/google/cel-go/common/types"

	kcel "github.com/kubecache/kubecache/fakeapiserver/internal/cel"
)

// namespaceTypeName is the CEL type of the namespaceObject variable.
const namespaceTypeName = "kubernetes.Namespace"

// declareNamespace declares the namespaceObject variable's type as the
// real server does: the Namespace fields an expression may read (no
// managedFields or ownerReferences; the uid spelt UID, as the real
// declaration spells it), so that a field it lacks, or a value of the
// wrong type, fails to compile.
func declareNamespace(ot *kcel.ObjectTypes) {
	str, strs, ts := types.StringType, types.NewListType(types.StringType), types.TimestampType
	spec := ot.Object("kubernetes.NamespaceSpec", kcel.Field{Name: "finalizers", Type: strs})
	cond := ot.Object("kubernetes.NamespaceCondition", kcel.Field{Name: "status", Type: str}, kcel.Field{Name: "type", Type: str},
		kcel.Field{Name: "lastTransitionTime", Type: ts}, kcel.Field{Name: "message", Type: str}, kcel.Field{Name: "reason", Type: str})
	status := ot.Object("kubernetes.NamespaceStatus", kcel.Field{Name: "conditions", Type: types.NewListType(cond)}, kcel.Field{Name: "phase", Type: str})
	labels := types.NewMapType(str, str)
	md := ot.Object("kubernetes.NamespaceMetadata",
		kcel.Field{Name: "name", Type: str}, kcel.Field{Name: "generateName", Type: str}, kcel.Field{Name: "namespace", Type: str},
		kcel.Field{Name: "labels", Type: labels}, kcel.Field{Name: "annotations", Type: labels}, kcel.Field{Name: "UID", Type: str},
		kcel.Field{Name: "creationTimestamp", Type: ts}, kcel.Field{Name: "deletionGracePeriodSeconds", Type: types.IntType},
		kcel.Field{Name: "deletionTimestamp", Type: ts}, kcel.Field{Name: "generation", Type: types.IntType},
		kcel.Field{Name: "resourceVersion", Type: str}, kcel.Field{Name: "finalizers", Type: strs})
	ot.Object(namespaceTypeName, kcel.Field{Name: "metadata", Type: md}, kcel.Field{Name: "spec", Type: spec}, kcel.Field{Name: "status", Type: status})
}
