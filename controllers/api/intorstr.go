package api

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// IntOrString is a number or a string, as maxSurge and maxUnavailable are
// ("1" or "25%"). The zero value is the number 0.
type IntOrString struct {
	// IsString says which of the two fields holds the value.
	IsString bool
	Int      int32
	Str      string
}

// FromInt returns the number i.
func FromInt(i int32) IntOrString { return IntOrString{Int: i} }

// FromString returns the string s.
func FromString(s string) IntOrString { return IntOrString{IsString: true, Str: s} }

// MarshalJSON writes a JSON number or string.
func (v IntOrString) MarshalJSON() ([]byte, error) {
	if v.IsString {
		return json.Marshal(v.Str)
	}
	return json.Marshal(v.Int)
}

// UnmarshalJSON reads a JSON number or string.
func (v *IntOrString) UnmarshalJSON(data []byte) error {
	data = bytes.TrimSpace(data)
	if len(data) > 0 && data[0] == '"' {
		v.IsString = true
		v.Int = 0
		return json.Unmarshal(data, &v.Str)
	}
	v.IsString = false
	v.Str = ""
	return json.Unmarshal(data, &v.Int)
}

// Scaled resolves v against total: a number is itself, a percentage is
// that share of total, rounded up when roundUp is set and down otherwise.
// A string that is not a percentage is an error.
func (v *IntOrString) Scaled(total int32, roundUp bool) (int32, error) {
	if v == nil {
		return 0, nil
	}
	if !v.IsString {
		return v.Int, nil
	}
	s, ok := strings.CutSuffix(v.Str, "%")
	if !ok {
		return 0, fmt.Errorf("invalid value for IntOrString: invalid type: string is not a percentage")
	}
	p, err := strconv.Atoi(s)
	if err != nil {
		return 0, fmt.Errorf("invalid value %q: %w", v.Str, err)
	}
	f := float64(p) * float64(total) / 100
	if roundUp {
		return int32(math.Ceil(f)), nil
	}
	return int32(math.Floor(f)), nil
}
