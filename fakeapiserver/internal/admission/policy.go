package admission

import (
	"encoding/json"

	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
	"github.com/kubecache/kubecache/selector"
)

// The admissionregistration.k8s.io/v1 types the policies are read into,
// with the API's JSON names. Pointers mark fields whose absence matters.

type objectMeta struct {
	Name            string `json:"name"`
	ResourceVersion string `json:"resourceVersion"`
	Generation      int64  `json:"generation"`
}

// validatingPolicy is a ValidatingAdmissionPolicy.
type validatingPolicy struct {
	Metadata objectMeta `json:"metadata"`
	Spec     struct {
		ParamKind        *paramKind        `json:"paramKind"`
		MatchConstraints *matchResources   `json:"matchConstraints"`
		Validations      []validationRule  `json:"validations"`
		FailurePolicy    *string           `json:"failurePolicy"`
		AuditAnnotations []auditAnnotation `json:"auditAnnotations"`
		MatchConditions  []namedExpression `json:"matchConditions"`
		Variables        []namedExpression `json:"variables"`
	} `json:"spec"`
}

// policyBinding is a ValidatingAdmissionPolicyBinding (and, with
// validationActions unused, a MutatingAdmissionPolicyBinding).
type policyBinding struct {
	Metadata objectMeta `json:"metadata"`
	Spec     struct {
		PolicyName        string          `json:"policyName"`
		ParamRef          *paramRef       `json:"paramRef"`
		MatchResources    *matchResources `json:"matchResources"`
		ValidationActions []string        `json:"validationActions"`
	} `json:"spec"`
}

type paramKind struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
}

type paramRef struct {
	Name                    string         `json:"name"`
	Namespace               string         `json:"namespace"`
	Selector                *labelSelector `json:"selector"`
	ParameterNotFoundAction *string        `json:"parameterNotFoundAction"`
}

type matchResources struct {
	NamespaceSelector    *labelSelector `json:"namespaceSelector"`
	ObjectSelector       *labelSelector `json:"objectSelector"`
	ResourceRules        []namedRule    `json:"resourceRules"`
	ExcludeResourceRules []namedRule    `json:"excludeResourceRules"`
	MatchPolicy          *string        `json:"matchPolicy"`
}

type namedRule struct {
	ResourceNames []string `json:"resourceNames"`
	Operations    []string `json:"operations"`
	APIGroups     []string `json:"apiGroups"`
	APIVersions   []string `json:"apiVersions"`
	Resources     []string `json:"resources"`
	Scope         *string  `json:"scope"`
}

type validationRule struct {
	Expression        string  `json:"expression"`
	Message           string  `json:"message"`
	Reason            *string `json:"reason"`
	MessageExpression string  `json:"messageExpression"`
}

type auditAnnotation struct {
	Key             string `json:"key"`
	ValueExpression string `json:"valueExpression"`
}

// namedExpression is a match condition or a variable.
type namedExpression struct {
	Name       string `json:"name"`
	Expression string `json:"expression"`
}

type labelSelector struct {
	MatchLabels      map[string]string `json:"matchLabels"`
	MatchExpressions []struct {
		Key      string   `json:"key"`
		Operator string   `json:"operator"`
		Values   []string `json:"values"`
	} `json:"matchExpressions"`
}

// labels converts a stored selector (already validated) to a selector;
// an unknown operator selects nothing.
func (s *labelSelector) labels() (selector.Labels, bool) {
	var reqs []selector.Requirement
	for k, v := range s.MatchLabels {
		r, err := selector.NewRequirement(k, selector.Equals, v)
		if err != nil {
			return selector.Labels{}, false
		}
		reqs = append(reqs, r)
	}
	for _, e := range s.MatchExpressions {
		r, err := selector.NewRequirement(e.Key, selector.Operator(toOperator(e.Operator)), e.Values...)
		if err != nil {
			return selector.Labels{}, false
		}
		reqs = append(reqs, r)
	}
	return selector.NewLabels(reqs...), true
}

// empty reports a selector without requirements: it selects everything.
func (s *labelSelector) empty() bool {
	return len(s.MatchLabels) == 0 && len(s.MatchExpressions) == 0
}

func toOperator(op string) string {
	switch op {
	case "In":
		return string(selector.In)
	case "NotIn":
		return string(selector.NotIn)
	case "Exists":
		return string(selector.Exists)
	case "DoesNotExist":
		return string(selector.DoesNotExist)
	}
	return op
}

// decode reads a stored object into one of the types above.
func decode(doc jsonv.Value, into any) error {
	return json.Unmarshal(jsonv.Marshal(doc), into)
}
