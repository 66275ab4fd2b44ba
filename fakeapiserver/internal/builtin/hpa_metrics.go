package builtin

// Conversions of one HPA metric (spec and status) between autoscaling/v2
// and the autoscaling/v1 shape of the metrics annotations, rule for rule
// as the real server's conversion.

// qty returns a quantity held by a pointer, "0" (a zero Quantity) when
// there is none.
func qty(q *string) string {
	if q == nil {
		return "0"
	}
	return *q
}

// metricToV1 converts a v2 MetricSpec to the v1 annotation shape.
func metricToV1(in hpaMetricV2) hpaMetricV1 {
	out := hpaMetricV1{Type: in.Type}
	switch {
	case in.Object != nil:
		out.Object = &hpaMetricV1Object{Target: in.Object.DescribedObject, MetricName: in.Object.Metric.Name,
			TargetValue: qty(in.Object.Target.Value), Selector: in.Object.Metric.Selector, AverageValue: in.Object.Target.AverageValue}
	case in.Pods != nil:
		out.Pods = &hpaMetricV1Pods{MetricName: in.Pods.Metric.Name, TargetAverageValue: qty(in.Pods.Target.AverageValue), Selector: in.Pods.Metric.Selector}
	case in.Resource != nil:
		r := resourceToV1(*in.Resource)
		out.Resource = &r
	case in.ContainerResource != nil:
		c := in.ContainerResource
		out.ContainerResource = &hpaMetricV1ContainerResource{resourceToV1(c.hpaMetricV2Resource), c.Container}
	case in.External != nil:
		e := in.External
		out.External = &hpaMetricV1External{MetricName: e.Metric.Name, MetricSelector: e.Metric.Selector, TargetValue: e.Target.Value, TargetAverageValue: e.Target.AverageValue}
	}
	return out
}

// metricFromV1 converts a metric of the v1 annotation to a v2 MetricSpec.
func metricFromV1(in hpaMetricV1) hpaMetricV2 {
	out := hpaMetricV2{Type: in.Type}
	switch {
	case in.Object != nil:
		o := in.Object
		t := hpaTarget{Type: "Value", AverageValue: o.AverageValue}
		value := o.TargetValue
		if o.AverageValue == nil {
			t.Value = &value
		} else {
			t.Type = "AverageValue"
			if !zeroQuantity(value) {
				t.Value = &value
			}
		}
		out.Object = &hpaMetricV2Object{DescribedObject: o.Target, Target: t, Metric: hpaMetricID{Name: o.MetricName, Selector: o.Selector}}
	case in.Pods != nil:
		avg := in.Pods.TargetAverageValue
		out.Pods = &hpaMetricV2Pods{Metric: hpaMetricID{Name: in.Pods.MetricName, Selector: in.Pods.Selector}, Target: hpaTarget{Type: "AverageValue", AverageValue: &avg}}
	case in.Resource != nil:
		r := resourceFromV1(*in.Resource)
		out.Resource = &r
	case in.ContainerResource != nil:
		c := in.ContainerResource
		out.ContainerResource = &hpaMetricV2ContainerResource{resourceFromV1(c.hpaMetricV1Resource), c.Container}
	case in.External != nil:
		e := in.External
		t := hpaTarget{Type: "Value", Value: e.TargetValue, AverageValue: e.TargetAverageValue}
		if e.TargetValue == nil {
			t.Type = "AverageValue"
		}
		out.External = &hpaMetricV2External{Metric: hpaMetricID{Name: e.MetricName, Selector: e.MetricSelector}, Target: t}
	}
	return out
}

// metricStatusToV1 converts a v2 MetricStatus to the v1 annotation shape.
func metricStatusToV1(in hpaMetricStatusV2) hpaMetricStatusV1 {
	out := hpaMetricStatusV1{Type: in.Type}
	switch {
	case in.Object != nil:
		o := in.Object
		out.Object = &hpaMetricStatusV1Object{Target: o.DescribedObject, MetricName: o.Metric.Name, CurrentValue: qty(o.Current.Value),
			Selector: o.Metric.Selector, AverageValue: o.Current.AverageValue}
	case in.Pods != nil:
		out.Pods = &hpaMetricStatusV1Pods{MetricName: in.Pods.Metric.Name, CurrentAverageValue: qty(in.Pods.Current.AverageValue), Selector: in.Pods.Metric.Selector}
	case in.Resource != nil:
		r := resourceStatusToV1(*in.Resource)
		out.Resource = &r
	case in.ContainerResource != nil:
		c := in.ContainerResource
		out.ContainerResource = &hpaMetricStatusV1ContainerResource{resourceStatusToV1(c.hpaMetricStatusV2Resource), c.Container}
	case in.External != nil:
		e := in.External
		out.External = &hpaMetricStatusV1External{MetricName: e.Metric.Name, MetricSelector: e.Metric.Selector, CurrentValue: qty(e.Current.Value),
			CurrentAverageValue: e.Current.AverageValue}
	}
	return out
}

// metricStatusFromV1 converts a status of the v1 annotation to a v2
// MetricStatus.
func metricStatusFromV1(in hpaMetricStatusV1) hpaMetricStatusV2 {
	out := hpaMetricStatusV2{Type: in.Type}
	switch {
	case in.Object != nil:
		o := in.Object
		v := o.CurrentValue
		out.Object = &hpaMetricStatusV2Object{Metric: hpaMetricID{Name: o.MetricName, Selector: o.Selector},
			Current: hpaValueStatus{Value: &v, AverageValue: o.AverageValue}, DescribedObject: o.Target}
	case in.Pods != nil:
		v := in.Pods.CurrentAverageValue
		out.Pods = &hpaMetricStatusV2Pods{Metric: hpaMetricID{Name: in.Pods.MetricName, Selector: in.Pods.Selector}, Current: hpaValueStatus{AverageValue: &v}}
	case in.Resource != nil:
		r := resourceStatusFromV1(*in.Resource)
		out.Resource = &r
	case in.ContainerResource != nil:
		c := in.ContainerResource
		out.ContainerResource = &hpaMetricStatusV2ContainerResource{resourceStatusFromV1(c.hpaMetricStatusV1Resource), c.Container}
	case in.External != nil:
		e := in.External
		v := e.CurrentValue
		out.External = &hpaMetricStatusV2External{Metric: hpaMetricID{Name: e.MetricName, Selector: e.MetricSelector}, Current: hpaValueStatus{Value: &v, AverageValue: e.CurrentAverageValue}}
	}
	return out
}

// resourceToV1 converts a v2 resource metric (of a pod or of one
// container) to the v1 annotation shape.
func resourceToV1(r hpaMetricV2Resource) hpaMetricV1Resource {
	return hpaMetricV1Resource{Name: r.Name, TargetAverageUtilization: r.Target.AverageUtilization, TargetAverageValue: r.Target.AverageValue}
}

// resourceFromV1 converts a resource metric of the v1 annotation to v2:
// a utilization target when it has one, an average value otherwise.
func resourceFromV1(r hpaMetricV1Resource) hpaMetricV2Resource {
	t := hpaTarget{Type: "AverageValue", AverageValue: r.TargetAverageValue}
	if r.TargetAverageUtilization != nil {
		t.Type, t.AverageUtilization = "Utilization", r.TargetAverageUtilization
	}
	return hpaMetricV2Resource{Name: r.Name, Target: t}
}

// resourceStatusToV1 converts a v2 resource metric status to the v1
// annotation shape.
func resourceStatusToV1(r hpaMetricStatusV2Resource) hpaMetricStatusV1Resource {
	return hpaMetricStatusV1Resource{Name: r.Name, CurrentAverageUtilization: r.Current.AverageUtilization, CurrentAverageValue: qty(r.Current.AverageValue)}
}

// resourceStatusFromV1 converts a resource metric status of the v1
// annotation to v2.
func resourceStatusFromV1(r hpaMetricStatusV1Resource) hpaMetricStatusV2Resource {
	v := r.CurrentAverageValue
	return hpaMetricStatusV2Resource{Name: r.Name, Current: hpaValueStatus{AverageValue: &v, AverageUtilization: r.CurrentAverageUtilization}}
}

// zeroQuantity reports a quantity string that is zero ("0", "0m", "").
func zeroQuantity(q string) bool {
	for _, c := range q {
		if c >= '1' && c <= '9' {
			return false
		}
		if c != '0' && c != '.' && c != '+' && c != '-' {
			break
		}
	}
	return true
}
