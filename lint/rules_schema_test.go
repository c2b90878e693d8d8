package lint

import (
	"context"
	"testing"

	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/rules"
	"github.com/meshguard/meshguard/schema"
)

// TestRuleFixesPassKumaCRDs: the "Good" example of every rule, the fix docs/rules.md
// shows, is an object a Kuma 2.14 cluster accepts once the mutating webhook has run:
// no schema error and no field the API server would drop. (A fix that the API
// server refuses is advice that still fails.)
func TestRuleFixesPassKumaCRDs(t *testing.T) {
	s, err := schema.Load("kuma-2.14")
	if err != nil {
		t.Fatal(err)
	}
	o := Options{Settings: api.DefaultSettings(), Namespace: "default", Registry: api.DefaultRegistry()}
	for _, r := range rules.Catalogue() {
		for _, d := range LoadBytes(r.Code+".yaml", []byte(r.Good)) {
			if d.Err != nil || d.Object == nil {
				t.Errorf("%s: the good example does not parse: %v", r.Code, d.Err)
				continue
			}
			Prepare(&d, o)
			res, ok := s.Check(context.Background(), d.Object)
			if !ok {
				continue // not a Kuma kind
			}
			if len(res.Errors) > 0 || len(res.Unknown) > 0 {
				t.Errorf("%s: Kuma's CRD refuses the good example: %v; drops %v", r.Code, res.Errors, res.Unknown)
			}
		}
	}
}

// TestValidExamplesPassKumaCRDs: the policies examples/valid/ shows as valid are ones
// a Kuma 2.14 cluster stores, not only ones meshguard admits.
func TestValidExamplesPassKumaCRDs(t *testing.T) {
	s, err := schema.Load("kuma-2.14")
	if err != nil {
		t.Fatal(err)
	}
	o := Options{Settings: api.DefaultSettings(), Namespace: "default", Registry: api.DefaultRegistry()}
	checked := 0
	for _, d := range Load([]string{"../examples/valid"}, nil) {
		if d.Err != nil {
			t.Fatalf("%s:%d: %v", d.File, d.Line, d.Err)
		}
		Prepare(&d, o)
		res, ok := s.Check(context.Background(), d.Object)
		if !ok {
			continue
		}
		checked++
		if len(res.Errors) > 0 || len(res.Unknown) > 0 {
			t.Errorf("%s:%d: Kuma's CRD refuses it: %v; drops %v", d.File, d.Line, res.Errors, res.Unknown)
		}
	}
	if checked < 10 {
		t.Errorf("only %d Kuma objects checked", checked)
	}
}
