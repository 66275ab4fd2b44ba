package cel

import (
	"testing"

	"github.com/google/cel-go/cel"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// eval compiles and runs expr in the Kubernetes environment, returning
// its value or its error's text.
func eval(t *testing.T, expr string) any {
	t.Helper()
	env, err := cel.NewEnv(Libraries()...)
	require.NoError(t, err)
	ast, iss := env.Compile(expr)
	require.NoError(t, iss.Err(), expr)
	prg, err := env.Program(ast)
	require.NoError(t, err)
	out, _, err := prg.Eval(cel.NoVars())
	if err != nil {
		return err.Error()
	}
	return out.Value()
}

// The answers follow the real server's library: whether a quantity is an
// integer depends on how the real parser holds it, not only on its value
// (e2e/crd asks the real server the same of "1.5" + "500m").
func TestQuantityLibrary(t *testing.T) {
	for expr, want := range map[string]any{
		"quantity('1k').isInteger()":                                true,
		"quantity('2000m').isInteger()":                             false,
		"quantity('1.0').isInteger()":                               false,
		"quantity('1e3').asInteger()":                               int64(1000),
		"quantity('1Ki').asInteger()":                               int64(1024),
		"quantity('1.5').add(quantity('500m')).isInteger()":         false,
		"quantity('1k').add(2).asInteger()":                         int64(1002),
		"quantity('0').add(quantity('1k')).asInteger()":             int64(1000),
		"quantity('1').sub(quantity('3')).asInteger()":              int64(-2),
		"quantity('9223372036854775807').add(1).isInteger()":        false,
		"quantity('1') == quantity('1000m')":                        true,
		"quantity('1Gi').compareTo(quantity('1G'))":                 int64(1),
		"sign(quantity('-1m'))":                                     int64(-1),
		"quantity('0.1n').isGreaterThan(quantity('0'))":             true,
		"quantity('1.5Gi').asApproximateFloat()":                    1.5 * (1 << 30),
		"isQuantity('1x') || isQuantity('') || isQuantity('1.2.3')": false,
		"sign(quantity('x'))":                                       "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
		"quantity('1K')":                                            "unable to parse quantity's suffix",
		"quantity('1.5').asInteger()":                               "cannot convert value to integer",
		"quantity('1e99999').isGreaterThan(quantity('9e99998'))":    true,
		"quantity('-1e-99999') == quantity('-1n')":                  true,
		"quantity('1e4294967297') == quantity('10')":                true,
		"quantity('1e99999').isInteger()":                           false,
		"quantity('1e1001').compareTo(quantity('1e1000'))":          int64(1),
		"isQuantity('1e2000000000') && !isQuantity('x1e5000')":      true,
		"quantity('1e100001')":                                      "quantity exponent 100001: beyond the exponents the fake server computes (±100000)",
		"quantity('1e99999999999999999999')":                        "unable to parse quantity's suffix",
	} {
		assert.Equal(t, want, eval(t, expr), expr)
	}
}

func TestSemverLibrary(t *testing.T) {
	for expr, want := range map[string]any{
		"semver('1.2.3-rc.1+build.5').patch()":                        int64(3),
		"semver('1.0.0-alpha').isLessThan(semver('1.0.0-alpha.1'))":   true,
		"semver('1.0.0-alpha.beta').isLessThan(semver('1.0.0-beta'))": true,
		"semver('1.0.0-2').isLessThan(semver('1.0.0-11'))":            true,
		"semver('1.0.0-rc.1').isLessThan(semver('1.0.0'))":            true,
		"semver('1.2.3+a') == semver('1.2.3+b')":                      true,
		"semver('v1.2', true) == semver('1.2.0')":                     true,
		"semver('01.002.3', true).minor()":                            int64(2),
		"isSemver('1.2') || isSemver('v1.2.3') || isSemver('1.2.3-')": false,
		"semver('1.2')":          "No Major.Minor.Patch elements found",
		"semver('1.02.3')":       "Minor number must not contain leading zeroes \"02\"",
		"semver('1.2.x')":        "Invalid character(s) found in patch number \"x\"",
		"semver('1.2.3-01')":     "Numeric PreRelease version must not contain leading zeroes \"01\"",
		"semver('1.2.3-a..b')":   "Prerelease is empty",
		"semver('1.2.3+a_b')":    "Invalid character(s) found in build meta data \"a_b\"",
		"semver('1.2-rc', true)": "short version cannot contain PreRelease/Build meta data",
		"semver('')":             "Version string empty",
	} {
		assert.Equal(t, want, eval(t, expr), expr)
	}
}

func TestFormatLibrary(t *testing.T) {
	for expr, want := range map[string]any{
		"format.dns1123Label().validate('ok').hasValue()":             false,
		"format.dns1123LabelPrefix().validate('pre-').hasValue()":     false,
		"format.dns1123Label().validate('pre-').hasValue()":           true,
		"format.named('uuid').value().validate('x').value()[0]":       "does not match the UUID format",
		"format.named('none').hasValue()":                             false,
		"format.date().validate('2026-02-30').value()[0]":             "invalid date",
		"format.byte().validate('aGk=').hasValue()":                   false,
		"format.uri() == format.named('uri').value()":                 true,
		"format.qualifiedName().validate('example.com/x').hasValue()": false,
	} {
		assert.Equal(t, want, eval(t, expr), expr)
	}
}
