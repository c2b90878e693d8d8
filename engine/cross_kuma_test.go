package engine

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/meshguard/meshguard/api"
)

// examplesOf reads a rule example (a stream of manifests) as objects, with the
// defaults the mutating stage gives them.
func examplesOf(t *testing.T, code, name string) []*unstructured.Unstructured {
	t.Helper()
	b, err := os.ReadFile("../rules/examples/" + code + "/" + name)
	if err != nil {
		t.Fatal(err)
	}
	var out []*unstructured.Unstructured
	for _, doc := range strings.Split(string(b), "\n---\n") {
		out = append(out, obj(t, doc))
	}
	return out
}

// TestKumaEffectsOnAdmission: each object of a rule's bad example, judged on
// admission against the cluster's other objects, gives the code where the
// example says; the good example gives none; a cluster source that cannot list
// Dataplanes gives none.
func TestKumaEffectsOnAdmission(t *testing.T) {
	tests := []struct {
		code, file string
		noDPs      bool
		want       map[string][]found // by subject name
	}{
		{code: "MG450", file: "bad.yaml", want: map[string][]found{
			"allow-all":       {{"MG450", "spec.from", "warning"}},
			"backend-clients": {{"MG450", "spec.rules", "warning"}},
		}},
		{code: "MG450", file: "bad.yaml", noDPs: true},
		{code: "MG450", file: "good.yaml"},
		{code: "MG451", file: "bad.yaml", want: map[string][]found{"timeouts-b": {{"MG451", "spec", "warning"}}}},
		{code: "MG451", file: "good.yaml"},
		{code: "MG452", file: "bad.yaml", want: map[string][]found{"backend-timeouts": {{"MG452", "spec.targetRef", "warning"}}}},
		{code: "MG452", file: "good.yaml"},
		{code: "MG453", file: "bad.yaml", want: map[string][]found{"web-retries": {{"MG453", "spec.to[1].targetRef", "warning"}}}},
		{code: "MG453", file: "good.yaml"},
	}
	eng := New(api.DefaultSettings())
	for _, tt := range tests {
		objs := examplesOf(t, tt.code, tt.file)
		got := map[string][]found{}
		for i, subject := range objs {
			k := kindOf(t, subject)
			if k.Resource {
				continue
			}
			src := &Objects{In: ScopeCluster, Complete: !tt.noDPs}
			for j, o := range objs {
				if j != i && !(tt.noDPs && o.GetKind() == api.KindDataplane) {
					src.Add(o)
				}
			}
			v := eng.Judge(context.Background(), Input{Object: subject, Kind: k, Source: src, Default: true,
				Request: api.Request{Operation: api.OpCreate}})
			for _, f := range summarize(v) {
				if strings.HasPrefix(f.Code, "MG45") {
					got[subject.GetName()] = append(got[subject.GetName()], f)
				}
			}
		}
		want := tt.want
		if want == nil {
			want = map[string][]found{}
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s/%s (noDPs %v) (-want +got):\n%s", tt.code, tt.file, tt.noDPs, diff)
		}
	}
}

// TestKumaEffectsBatchAsOne: judging every policy of an example at once (a lint
// run) gives each the findings it gets alone (admission).
func TestKumaEffectsBatchAsOne(t *testing.T) {
	eng := New(api.DefaultSettings())
	for _, code := range []string{"MG450", "MG451", "MG452", "MG453"} {
		objs := examplesOf(t, code, "bad.yaml")
		src := &Objects{}
		var subjects []Subject
		for _, o := range objs {
			src.Add(o)
			if k := kindOf(t, o); !k.Resource {
				subjects = append(subjects, Subject{Object: o, Kind: k})
			}
		}
		all := eng.CrossAll(context.Background(), subjects, src, false)
		for i, s := range subjects {
			errs, warns := eng.Cross(context.Background(), s, src, false)
			if diff := cmp.Diff(all[i], Findings{Errors: errs, Warnings: warns}); diff != "" {
				t.Errorf("%s %s: batch differs from alone (-batch +alone):\n%s", code, s.Object.GetName(), diff)
			}
		}
	}
}
