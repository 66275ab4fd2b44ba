package builtin

import (
	"math"
	"math/big"
	"strings"

	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
)

// The request policies of a device's consumable capacity, as the real
// validator checks them with the 1.37 gates (DRAConsumableCapacity on,
// DRAFractionalCapacityRange off: steps are reckoned in whole units,
// each value rounded up).

// maxValidValues bounds a request policy's discrete options.
const maxValidValues = 10

// quantity is a parsed quantity with the text it was given as.
type quantity struct {
	text string
	val  *big.Rat
}

// quantityAt reads the quantity under key; ok is false when it is
// absent or not a quantity.
func quantityAt(obj *jsonv.Value, key string) (quantity, bool) {
	v := obj.Get(key)
	r, ok := quantityValue(v)
	if !ok {
		return quantity{}, false
	}
	return quantity{text: v.Str, val: r}, true
}

// String is the quantity's canonical form, as the real server shows it.
func (q quantity) String() string {
	if s, ok := canonicalQuantity(q.text, false); ok {
		return s
	}
	return q.text
}

// units is the quantity in whole units rounded away from zero, as the
// real Quantity.Value reads it.
func (q quantity) units() *big.Int {
	n, r := new(big.Int).QuoRem(q.val.Num(), q.val.Denom(), new(big.Int))
	if r.Sign() > 0 {
		n.Add(n, big.NewInt(1))
	} else if r.Sign() < 0 {
		n.Sub(n, big.NewInt(1))
	}
	return n
}

// plus is q+o shown in q's format, as the real Quantity.Add leaves it.
func (q quantity) plus(o quantity) string {
	sum := new(big.Rat).Add(q.val, o.val)
	d := decimal{exp: 0}
	scaled := new(big.Rat).Set(sum)
	for d.exp > -9 && !scaled.IsInt() {
		scaled.Mul(scaled, big.NewRat(10, 1))
		d.exp--
	}
	d.mantissa = new(big.Int).Quo(scaled.Num(), scaled.Denom())
	format := decimalSI
	if sq, ok := scanQuantity(strings.TrimSpace(q.text)); ok {
		if _, _, f, ok := interpretSuffix(sq.suffix); ok {
			format = f
		}
	}
	return formatQuantity(d, format)
}

// requestPolicy checks the request policy of a capacity of a device
// that allows multiple allocations; capacity is the capacity's value.
func (v *validator) requestPolicy(p string, capacity quantity, policy *jsonv.Value) {
	values, rng := policy.Get("validValues"), present(policy, "validRange")
	hasValues := values != nil && values.Kind == jsonv.Array && len(values.Arr) > 0
	def, hasDefault := quantityAt(policy, "default")
	switch {
	case hasValues && rng != nil:
		v.forbidden(p, `exactly one policy can be specified, cannot specify "validValues" and "validRange" at the same time`)
	case hasValues && !hasDefault:
		v.required(p+".default", "required when validValues is defined")
	case hasValues:
		v.validValues(p+".validValues", def, capacity, values.Arr)
	case rng != nil && !hasDefault:
		v.required(p+".default", "required when validRange is defined")
	case rng != nil:
		v.validRange(p+".validRange", def, capacity, rng)
	}
}

// validValues checks discrete options: ascending, at most ten, unique
// in whole units, none over the capacity, the default among them.
func (v *validator) validValues(p string, def, capacity quantity, values []jsonv.Value) {
	opts := make([]quantity, 0, len(values))
	for i := range values {
		if r, ok := quantityValue(&values[i]); ok {
			opts = append(opts, quantity{text: values[i].Str, val: r})
		}
	}
	for i := 0; i+1 < len(opts); i++ {
		if opts[i].val.Cmp(opts[i+1].val) > 0 {
			v.invalid(index(p, i+1), opts[i+1].String(), "values must be sorted in ascending order")
		}
	}
	found := false
	if len(opts) > maxValidValues {
		v.tooMany(p, len(opts), maxValidValues)
	} else {
		seen := map[string]bool{}
		for i, o := range opts {
			if o.val.Cmp(capacity.val) > 0 {
				v.invalid(index(p, i), o.String(), "option is larger than capacity value: "+capacity.String())
			}
			if o.val.Cmp(def.val) == 0 {
				found = true
			}
			k := o.units().String()
			if seen[k] {
				v.duplicate(index(p, i), k)
			}
			seen[k] = true
		}
	}
	if !found {
		v.invalid(p, def.String(), "default value is not valid according to the requestPolicy")
	}
}

// validRange checks a range of requests: a min within the capacity, a
// max within it and not under min, a default between them, a positive
// step that fits the capacity once and divides the default's and max's
// distance from min.
func (v *validator) validRange(p string, def, capacity quantity, rng *jsonv.Value) {
	lo, ok := quantityAt(rng, "min")
	if !ok {
		v.required(p+".min", "required when validRange is defined")
		return
	}
	if lo.val.Cmp(capacity.val) > 0 {
		v.invalid(p+".min", lo.String(), "min is larger than capacity value: "+capacity.String())
	}
	if def.val.Cmp(lo.val) < 0 {
		v.invalid(p+".default", def.String(), "default is less than min: "+lo.String())
	}
	hi, hasMax := quantityAt(rng, "max")
	if hasMax {
		if lo.val.Cmp(hi.val) > 0 {
			v.invalid(p+".max", lo.String(), "min is larger than max: "+hi.String())
		}
		if hi.val.Cmp(capacity.val) > 0 {
			v.invalid(p+".max", hi.String(), "max is larger than capacity value: "+capacity.String())
		}
		if def.val.Cmp(hi.val) > 0 {
			v.invalid(p+".default", def.String(), "default is more than max: "+hi.String())
		}
	}
	step, ok := quantityAt(rng, "step")
	if !ok {
		return
	}
	if step.val.Sign() <= 0 {
		v.invalid(p+".step", step.String(), "must be greater than zero")
		return
	}
	if sum := new(big.Rat).Add(lo.val, step.val); sum.Cmp(capacity.val) > 0 {
		v.invalid(p+".step", step.String(), "one step "+lo.plus(step)+" is larger than capacity value: "+capacity.String())
	}
	named := []struct {
		name string
		q    quantity
		set  bool
	}{{"default", def, true}, {"min", lo, true}, {"max", hi, hasMax}, {"step", step, true}}
	unsafe := false
	for _, n := range named {
		if n.set && !v.wholeUnitsBound(p+"."+n.name, n.q) {
			unsafe = true
		}
	}
	if unsafe {
		return
	}
	v.rangeStep(p+".step", def, lo, step)
	if hasMax {
		v.rangeStep(p+".step", hi, lo, step)
	}
}

// wholeUnitsBound reports a bound outside [0, MaxInt64], where whole
// units cannot be reckoned with, and returns whether it is inside.
func (v *validator) wholeUnitsBound(p string, q quantity) bool {
	switch {
	case q.val.Sign() < 0:
		v.invalid(p, q.String(), "must be greater than or equal to 0")
	case q.val.Cmp(new(big.Rat).SetInt64(math.MaxInt64)) > 0:
		v.invalid(p, q.String(), "must not be larger than 9223372036854775807")
	default:
		return true
	}
	return false
}

// rangeStep reports a value whose distance from min, in whole units, is
// not a multiple of step.
func (v *validator) rangeStep(p string, value, lo, step quantity) {
	diff := new(big.Int).Sub(value.units(), lo.units())
	if new(big.Int).Rem(diff, step.units()).Sign() != 0 {
		v.invalid(p, value.String(), "value is not a multiple of a given step ("+step.String()+") from ("+lo.String()+")")
	}
}
