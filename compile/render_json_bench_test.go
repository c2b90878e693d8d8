package compile

import (
	"testing"

	"google.golang.org/protobuf/encoding/protojson"
)

// BenchmarkMarshalJSONCompact measures the webhook's `rbac-preview` annotation on
// the MeshTrafficPermission MADR's expanded previews (the largest realistic document in the package):
// the hand-written encoder against the encoding/json reference it replaces. Like
// BenchmarkCompileFrom it reports CPU time per op too, which the shared machine's
// load inflates less than ns/op. protojson-only marshals just the Envoy configs:
// the floor of any encoder that keeps protojson.
func BenchmarkMarshalJSONCompact(b *testing.B) {
	pvs := seed000Previews(b, FormExpanded)
	for _, impl := range []struct {
		name string
		fn   func([]Preview) ([]byte, error)
	}{{"new", MarshalJSONCompact}, {"reference", refMarshalJSONCompact}, {"protojson-only", protojsonOnly}} {
		b.Run(impl.name, func(b *testing.B) {
			b.ReportAllocs()
			start := cpuTime()
			for b.Loop() {
				if _, err := impl.fn(pvs); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
		})
	}
}

// seed000Previews builds the MeshTrafficPermission MADR's previews in form.
func seed000Previews(tb testing.TB, form Form) []Preview {
	tb.Helper()
	pvs, err := BuildPreviews(policiesFromYAML(tb, seed000YAML), Options{Form: form})
	if err != nil {
		tb.Fatal(err)
	}
	return pvs
}

// protojsonOnly marshals the previews' Envoy configs and nothing else.
func protojsonOnly(pvs []Preview) ([]byte, error) {
	var b []byte
	for _, p := range pvs {
		var err error
		if b, err = (protojson.MarshalOptions{}).MarshalAppend(b[:0], p.RBAC); err != nil {
			return nil, err
		}
		if p.HTTPRBAC != nil {
			if b, err = (protojson.MarshalOptions{}).MarshalAppend(b[:0], p.HTTPRBAC); err != nil {
				return nil, err
			}
		}
	}
	return b, nil
}
