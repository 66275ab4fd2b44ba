package webview

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
)

// Controls are what the page lets a learner do to the system it shows:
// buttons that inject faults and sliders that turn a knob. The demo wires
// them to its fake API server and workload; a view of a real cluster has
// none.
type Controls struct {
	Faults  []Fault
	Sliders []Slider
}

// Fault is one button. Do runs when the button is pressed, on the HTTP
// request's goroutine, and must return promptly.
type Fault struct {
	// ID names the button in the page and in the URL; Label is its text,
	// Help its tooltip.
	ID, Label, Help string
	Do              func(ctx context.Context) error
}

// Slider is one knob: a value in [Min, Max] by Step, starting at Value,
// handed to Set whenever the learner moves it.
type Slider struct {
	ID, Label, Unit       string
	Min, Max, Step, Value float64
	Set                   func(v float64) error
}

// ControlsView is how the page learns about the controls (in the first
// frame of a connection).
type ControlsView struct {
	Faults  []FaultView  `json:"faults"`
	Sliders []SliderView `json:"sliders"`
}

// FaultView is a button as the page draws it.
type FaultView struct {
	ID    string `json:"id"`
	Label string `json:"label"`
	Help  string `json:"help"`
}

// SliderView is a slider as the page draws it, at its current value.
type SliderView struct {
	ID    string  `json:"id"`
	Label string  `json:"label"`
	Unit  string  `json:"unit"`
	Min   float64 `json:"min"`
	Max   float64 `json:"max"`
	Step  float64 `json:"step"`
	Value float64 `json:"value"`
}

// controls holds the Controls and the sliders' current values.
type controls struct {
	faults  map[string]Fault
	sliders map[string]Slider
	order   ControlsView

	// mu guards values.
	mu     sync.Mutex
	values map[string]float64
}

// newControls checks c: ids present and unique, functions set, ranges
// sensible.
func newControls(c Controls) (*controls, error) {
	out := &controls{faults: map[string]Fault{}, sliders: map[string]Slider{}, values: map[string]float64{}}
	for _, f := range c.Faults {
		if f.ID == "" || f.Do == nil {
			return nil, fmt.Errorf("fault %q: an ID and a Do function are required", f.ID)
		}
		if _, dup := out.faults[f.ID]; dup {
			return nil, fmt.Errorf("fault %q: the ID is used twice", f.ID)
		}
		out.faults[f.ID] = f
		out.order.Faults = append(out.order.Faults, FaultView{ID: f.ID, Label: f.Label, Help: f.Help})
	}
	for _, s := range c.Sliders {
		switch {
		case s.ID == "" || s.Set == nil:
			return nil, fmt.Errorf("slider %q: an ID and a Set function are required", s.ID)
		case !(s.Min < s.Max) || s.Value < s.Min || s.Value > s.Max || s.Step < 0:
			return nil, fmt.Errorf("slider %q: want Min < Max, Value in between and Step >= 0", s.ID)
		}
		if _, dup := out.sliders[s.ID]; dup {
			return nil, fmt.Errorf("slider %q: the ID is used twice", s.ID)
		}
		out.sliders[s.ID] = s
		out.values[s.ID] = s.Value
		out.order.Sliders = append(out.order.Sliders, SliderView{ID: s.ID, Label: s.Label, Unit: s.Unit, Min: s.Min, Max: s.Max, Step: s.Step})
	}
	return out, nil
}

// Errors of the control endpoints.
var (
	errNoSuchControl = errors.New("no such control")
	errOutOfRange    = errors.New("value out of range")
)

// press runs the fault id.
func (c *controls) press(ctx context.Context, id string) error {
	f, ok := c.faults[id]
	if !ok {
		return fmt.Errorf("fault %q: %w", id, errNoSuchControl)
	}
	return f.Do(ctx)
}

// set moves the slider id to v.
func (c *controls) set(id string, v float64) error {
	s, ok := c.sliders[id]
	if !ok {
		return fmt.Errorf("slider %q: %w", id, errNoSuchControl)
	}
	if math.IsNaN(v) || v < s.Min || v > s.Max {
		return fmt.Errorf("slider %q: %v: %w [%v, %v]", id, v, errOutOfRange, s.Min, s.Max)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := s.Set(v); err != nil {
		return err
	}
	c.values[id] = v
	return nil
}

// view returns the controls with the sliders' current values.
func (c *controls) view() *ControlsView {
	if len(c.order.Faults) == 0 && len(c.order.Sliders) == 0 {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	v := &ControlsView{Faults: c.order.Faults, Sliders: make([]SliderView, len(c.order.Sliders))}
	for i, s := range c.order.Sliders {
		s.Value = c.values[s.ID]
		v.Sliders[i] = s
	}
	return v
}
