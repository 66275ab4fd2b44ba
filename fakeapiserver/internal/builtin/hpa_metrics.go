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
		out.Resource = &hpaMetricV1Resource{Name: in.Resource.Name, TargetAverageUtilization: in.Resource.Target.AverageUtilization, TargetAverageValue: in.Resource.Target.AverageValue}
	case in.ContainerResource != nil:
		c := in.ContainerResource
		out.ContainerResource = &hpaMetricV1ContainerResource{Name: c.Name, TargetAverageUtilization: c.Target.AverageUtilization, TargetAverageValue: c.Target.AverageValue, Container: c.Container}
	case in.External != nil:
		e := in.External
		out.External = &hpaMetricV1External{MetricName: e.Metric.Name, MetricSelector: e.Metric.Selector, TargetValue: e.Target.Value, TargetAverageValue: e.Target.AverageValue}
	}
	return out
}

// metricFromV1 converts a metric of the v1 annotation to a v2 MetricSpec.
func metricFromV1(in hpaMetricV1) hpaMetricV2 {
	out := hpaMetricV2{Type: in.Type}
	utilization := func(u *int32, avg *string) hpaTarget {
		if u == nil {
			return hpaTarget{Type: "AverageValue", AverageValue: avg}
		}
		return hpaTarget{Type: "Utilization", AverageValue: avg, AverageUtilization: u}
	}
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
		out.Resource = &hpaMetricV2Resource{Name: in.Resource.Name, Target: utilization(in.Resource.TargetAverageUtilization, in.Resource.TargetAverageValue)}
	case in.ContainerResource != nil:
		c := in.ContainerResource
		out.ContainerResource = &hpaMetricV2ContainerResource{Name: c.Name, Target: utilization(c.TargetAverageUtilization, c.TargetAverageValue), Container: c.Container}
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
		r := in.Resource
		out.Resource = &hpaMetricStatusV1Resource{Name: r.Name, CurrentAverageUtilization: r.Current.AverageUtilization, CurrentAverageValue: qty(r.Current.AverageValue)}
	case in.ContainerResource != nil:
		c := in.ContainerResource
		out.ContainerResource = &hpaMetricStatusV1ContainerResource{Name: c.Name, CurrentAverageUtilization: c.Current.AverageUtilization,
			CurrentAverageValue: qty(c.Current.AverageValue), Container: c.Container}
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
		v := in.Resource.CurrentAverageValue
		out.Resource = &hpaMetricStatusV2Resource{Name: in.Resource.Name, Current: hpaValueStatus{AverageValue: &v, AverageUtilization: in.Resource.CurrentAverageUtilization}}
	case in.ContainerResource != nil:
		c := in.ContainerResource
		v := c.CurrentAverageValue
		out.ContainerResource = &hpaMetricStatusV2ContainerResource{Name: c.Name, Current: hpaValueStatus{AverageValue: &v, AverageUtilization: c.CurrentAverageUtilization}, Container: c.Container}
	case in.External != nil:
		e := in.External
		v := e.CurrentValue
		out.External = &hpaMetricStatusV2External{Metric: hpaMetricID{Name: e.MetricName, Selector: e.MetricSelector}, Current: hpaValueStatus{Value: &v, AverageValue: e.CurrentAverageValue}}
	}
	return out
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
