package workqueue

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestFIFOWrapsAndGrows pushes and pops in a pattern that makes the ring wrap
// around before it grows, and checks the order against a slice.
func TestFIFOWrapsAndGrows(t *testing.T) {
	var f fifo[int]
	var model []int
	next := 0
	for round := range 50 {
		for range round%7 + 3 {
			f.push(next)
			model = append(model, next)
			next++
		}
		for range round % 5 {
			if len(model) == 0 {
				break
			}
			assert.Equal(t, model[0], f.pop(), "round %d", round)
			model = model[1:]
		}
		assert.Equal(t, len(model), f.len(), "round %d", round)
	}
	for len(model) > 0 {
		assert.Equal(t, model[0], f.pop())
		model = model[1:]
	}
	assert.Zero(t, f.len())
}
