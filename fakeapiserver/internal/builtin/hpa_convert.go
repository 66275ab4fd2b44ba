package builtin

import (
	"encoding/json"

	"github.com/kubecache/kubecache/meta"
)

// HorizontalPodAutoscalers are stored as autoscaling/v2, as on the real
// server, and read and written at autoscaling/v1 through its conversion:
// the CPU utilization target is targetCPUUtilizationPercentage, and what
// v1 cannot say (other metrics, behavior, current metrics, conditions)
// travels in the autoscaling.alpha.kubernetes.io annotations.

// The annotations that carry v2 fields through autoscaling/v1.
const (
	hpaMetricsAnnotation        = "autoscaling.alpha.kubernetes.io/metrics"
	hpaCurrentMetricsAnnotation = "autoscaling.alpha.kubernetes.io/current-metrics"
	hpaBehaviorAnnotationKey    = "autoscaling.alpha.kubernetes.io/behavior"
	hpaConditionsAnnotation     = "autoscaling.alpha.kubernetes.io/conditions"
)

// hpaDefaultCPU is the CPU utilization target of an HPA without metrics.
const hpaDefaultCPU = 80

// hpaScale is the start of an HPA's spec, the same at both versions.
type hpaScale struct {
	ScaleTargetRef hpaRef `json:"scaleTargetRef"`
	MinReplicas    *int32 `json:"minReplicas,omitempty"`
	MaxReplicas    int32  `json:"maxReplicas"`
}

// hpaObserved is the start of an HPA's status, the same at both versions.
type hpaObserved struct {
	ObservedGeneration *int64          `json:"observedGeneration,omitempty"`
	LastScaleTime      json.RawMessage `json:"lastScaleTime,omitempty"`
}

type hpaV1 struct {
	Kind       string           `json:"kind"`
	APIVersion string           `json:"apiVersion"`
	Metadata   *meta.ObjectMeta `json:"metadata"`
	Spec       struct {
		hpaScale
		TargetCPU *int32 `json:"targetCPUUtilizationPercentage,omitempty"`
	} `json:"spec"`
	Status struct {
		hpaObserved
		CurrentReplicas int32  `json:"currentReplicas"`
		DesiredReplicas int32  `json:"desiredReplicas"`
		CurrentCPU      *int32 `json:"currentCPUUtilizationPercentage,omitempty"`
	} `json:"status"`
}

type hpaV2 struct {
	Kind       string           `json:"kind"`
	APIVersion string           `json:"apiVersion"`
	Metadata   *meta.ObjectMeta `json:"metadata"`
	Spec       struct {
		hpaScale
		Metrics  []hpaMetricV2 `json:"metrics,omitempty"`
		Behavior *hpaBehavior  `json:"behavior,omitempty"`
	} `json:"spec"`
	Status struct {
		hpaObserved
		CurrentReplicas int32               `json:"currentReplicas,omitempty"`
		DesiredReplicas int32               `json:"desiredReplicas"`
		CurrentMetrics  []hpaMetricStatusV2 `json:"currentMetrics"`
		Conditions      []json.RawMessage   `json:"conditions,omitempty"`
	} `json:"status"`
}

// HPAToV1 converts a stored autoscaling/v2 HorizontalPodAutoscaler (its
// full JSON) to autoscaling/v1.
func HPAToV1(obj []byte) ([]byte, error) {
	var in hpaV2
	if err := json.Unmarshal(obj, &in); err != nil {
		return nil, err
	}
	var out hpaV1
	out.Kind, out.APIVersion = "HorizontalPodAutoscaler", "autoscaling/v1"
	m, _ := hpaMeta(in.Metadata)
	out.Metadata = m
	out.Spec.hpaScale = in.Spec.hpaScale
	var others []hpaMetricV1
	for _, mt := range in.Spec.Metrics {
		if mt.Type == "Resource" && mt.Resource != nil && mt.Resource.Name == "cpu" && mt.Resource.Target.AverageUtilization != nil {
			if out.Spec.TargetCPU == nil {
				out.Spec.TargetCPU = mt.Resource.Target.AverageUtilization
			}
			continue
		}
		others = append(others, metricToV1(mt))
	}
	st := &out.Status
	st.hpaObserved, st.CurrentReplicas, st.DesiredReplicas = in.Status.hpaObserved, in.Status.CurrentReplicas, in.Status.DesiredReplicas
	current := make([]hpaMetricStatusV1, 0, len(in.Status.CurrentMetrics))
	for _, ms := range in.Status.CurrentMetrics {
		if ms.Type == "Resource" && ms.Resource != nil && ms.Resource.Name == "cpu" && ms.Resource.Current.AverageUtilization != nil {
			st.CurrentCPU = ms.Resource.Current.AverageUtilization
		}
		current = append(current, metricStatusToV1(ms))
	}
	set := func(key string, v any) error {
		data, err := json.Marshal(v)
		if err != nil {
			return err
		}
		if m.Annotations == nil {
			m.Annotations = map[string]string{}
		}
		m.Annotations[key] = string(data)
		return nil
	}
	var err error
	if len(others) > 0 {
		err = set(hpaMetricsAnnotation, others)
	}
	if len(current) > 0 && err == nil {
		err = set(hpaCurrentMetricsAnnotation, current)
	}
	if in.Spec.Behavior != nil && err == nil {
		err = set(hpaBehaviorAnnotationKey, behaviorAnnotation(in.Spec.Behavior))
	}
	if len(in.Status.Conditions) > 0 && err == nil {
		err = set(hpaConditionsAnnotation, in.Status.Conditions)
	}
	if err != nil {
		return nil, err
	}
	return json.Marshal(out)
}

// HPAFromV1 converts an autoscaling/v1 HorizontalPodAutoscaler (its full
// JSON) to autoscaling/v2, reading back the annotations HPAToV1 writes
// (ones that do not parse are ignored, as on the real server) and
// dropping them.
func HPAFromV1(obj []byte) ([]byte, error) {
	var in hpaV1
	if err := json.Unmarshal(obj, &in); err != nil {
		return nil, err
	}
	var out hpaV2
	out.Kind, out.APIVersion = "HorizontalPodAutoscaler", "autoscaling/v2"
	m, ann := hpaMeta(in.Metadata)
	out.Metadata = m
	out.Spec.hpaScale = in.Spec.hpaScale
	var cpu []hpaMetricV2
	if in.Spec.TargetCPU != nil {
		cpu = []hpaMetricV2{cpuMetric(*in.Spec.TargetCPU)}
	}
	out.Spec.Metrics = cpu
	var others []hpaMetricV1
	if s, ok := ann[hpaMetricsAnnotation]; ok && json.Unmarshal([]byte(s), &others) == nil {
		metrics := make([]hpaMetricV2, 0, len(others)+len(cpu))
		for _, mt := range others {
			metrics = append(metrics, metricFromV1(mt))
		}
		out.Spec.Metrics = append(metrics, cpu...)
	}
	var b hpaBehaviorAnnotation
	if s, ok := ann[hpaBehaviorAnnotationKey]; ok && json.Unmarshal([]byte(s), &b) == nil && (b.ScaleUp != nil || b.ScaleDown != nil) {
		out.Spec.Behavior = behaviorFromAnnotation(b)
	}
	st := &out.Status
	st.hpaObserved, st.CurrentReplicas, st.DesiredReplicas = in.Status.hpaObserved, in.Status.CurrentReplicas, in.Status.DesiredReplicas
	if c := in.Status.CurrentCPU; c != nil {
		ms := hpaMetricStatusV2{Type: "Resource"}
		ms.Resource = &hpaMetricStatusV2Resource{Name: "cpu", Current: hpaValueStatus{AverageUtilization: c}}
		st.CurrentMetrics = []hpaMetricStatusV2{ms}
	}
	var current []hpaMetricStatusV1
	if s, ok := ann[hpaCurrentMetricsAnnotation]; ok && json.Unmarshal([]byte(s), &current) == nil {
		st.CurrentMetrics = make([]hpaMetricStatusV2, 0, len(current))
		for _, ms := range current {
			st.CurrentMetrics = append(st.CurrentMetrics, metricStatusFromV1(ms))
		}
	}
	if len(out.Spec.Metrics) == 0 {
		out.Spec.Metrics = []hpaMetricV2{cpuMetric(hpaDefaultCPU)}
	}
	var conds []json.RawMessage
	if s, ok := ann[hpaConditionsAnnotation]; ok && json.Unmarshal([]byte(s), &conds) == nil {
		st.Conditions = conds
	}
	return json.Marshal(out)
}

// hpaMeta copies an HPA's metadata without the conversion's annotations,
// returning the annotations it had.
func hpaMeta(in *meta.ObjectMeta) (*meta.ObjectMeta, map[string]string) {
	m := meta.ObjectMeta{}
	if in != nil {
		m = *in
	}
	ann := m.Annotations
	m.Annotations = dropHPAAnnotations(m.Annotations)
	return &m, ann
}

// dropHPAAnnotations returns annotations without the conversion's own,
// copied when it has any; nil stays nil and an emptied map becomes nil.
func dropHPAAnnotations(a map[string]string) map[string]string {
	keys := []string{hpaMetricsAnnotation, hpaCurrentMetricsAnnotation, hpaBehaviorAnnotationKey, hpaConditionsAnnotation}
	found := false
	for _, k := range keys {
		if _, ok := a[k]; ok {
			found = true
		}
	}
	if !found {
		return a
	}
	out := make(map[string]string, len(a))
	for k, v := range a {
		out[k] = v
	}
	for _, k := range keys {
		delete(out, k)
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// cpuMetric is a Resource metric targeting CPU utilization pct.
func cpuMetric(pct int32) hpaMetricV2 {
	mt := hpaMetricV2{Type: "Resource"}
	mt.Resource = &hpaMetricV2Resource{Name: "cpu", Target: hpaTarget{Type: "Utilization", AverageUtilization: &pct}}
	return mt
}

// behaviorAnnotation is a behavior as its internal Go type encodes.
func behaviorAnnotation(b *hpaBehavior) hpaBehaviorAnnotation {
	conv := func(r *hpaScalingRules) *hpaRulesAnnotation {
		if r == nil {
			return nil
		}
		out := &hpaRulesAnnotation{StabilizationWindowSeconds: r.StabilizationWindowSeconds, SelectPolicy: r.SelectPolicy, Tolerance: r.Tolerance}
		if r.Policies != nil {
			for _, p := range *r.Policies {
				out.Policies = append(out.Policies, hpaPolicyAnnotation{Type: p.Type, Value: p.Value, PeriodSeconds: p.PeriodSeconds})
			}
		}
		return out
	}
	return hpaBehaviorAnnotation{ScaleUp: conv(b.ScaleUp), ScaleDown: conv(b.ScaleDown)}
}

// behaviorFromAnnotation reads a behavior back from its annotation.
func behaviorFromAnnotation(b hpaBehaviorAnnotation) *hpaBehavior {
	conv := func(r *hpaRulesAnnotation) *hpaScalingRules {
		if r == nil {
			return nil
		}
		out := &hpaScalingRules{StabilizationWindowSeconds: r.StabilizationWindowSeconds, SelectPolicy: r.SelectPolicy, Tolerance: r.Tolerance}
		// The real server does not default a behavior that comes in the
		// annotation: a direction without policies is refused as one
		// with policies: [], which the v2 defaulter keeps.
		policies := make([]hpaPolicy, 0, len(r.Policies))
		for _, p := range r.Policies {
			policies = append(policies, hpaPolicy{p.Type, p.Value, p.PeriodSeconds})
		}
		out.Policies = &policies
		return out
	}
	return &hpaBehavior{ScaleUp: conv(b.ScaleUp), ScaleDown: conv(b.ScaleDown)}
}
