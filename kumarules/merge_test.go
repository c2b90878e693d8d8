package kumarules

import (
	"encoding/json"
	"testing"

	"go.yaml.in/yaml/v3"
)

// y decodes a YAML literal into the JSON-shaped value the engine works on.
func y(t *testing.T, s string) any {
	t.Helper()
	var v any
	if err := yaml.Unmarshal([]byte(s), &v); err != nil {
		t.Fatal(err)
	}
	return v
}

func js(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestMerge(t *testing.T) {
	for _, tc := range []struct {
		name, kind string
		confs      []string
		want       []string
	}{
		{name: "objects merge key by key, lists and scalars are replaced", kind: "MeshRetry",
			confs: []string{"{http: {numRetries: 1, retryOn: [5xx]}, tcp: {maxConnectAttempt: 2}}", "{http: {retryOn: [gateway-error]}}"},
			want:  []string{`{"http":{"numRetries":1,"retryOn":["gateway-error"]},"tcp":{"maxConnectAttempt":2}}`}},
		{name: "null members are ignored, as Kuma's typed decoding drops them", kind: "MeshTimeout",
			confs: []string{"{idleTimeout: 10s}", "{idleTimeout: null, connectionTimeout: 2s}"},
			want:  []string{`{"connectionTimeout":"2s","idleTimeout":"10s"}`}},
		{name: "append lists concatenate at any depth", kind: "MeshMetric",
			confs: []string{"{sidecar: {profiles: {appendProfiles: [{name: Basic}]}}, appendX: [1]}", "{sidecar: {profiles: {appendProfiles: [{name: All}]}}}", "{appendX: [2]}"},
			want:  []string{`{"appendX":[1,2],"sidecar":{"profiles":{"appendProfiles":[{"name":"Basic"},{"name":"All"}]}}}`}},
		{name: "a key merely starting with append is not an append list", kind: "MeshTrace",
			confs: []string{"{appended: [1]}", "{appended: [2]}"},
			want:  []string{`{"appended":[2]}`}},
		{name: "MeshHTTPRoute rules merge by matches; the later policy's rules come first", kind: refMeshHTTPRoute,
			// confs as toConf builds them: each item's rules reversed
			confs: []string{
				"{rules: [{matches: [{path: {value: /b}}], default: {backendRefs: [{name: a2}], filters: [{type: X}]}}, {matches: [{path: {value: /a}}], default: {backendRefs: [{name: a1}]}}]}",
				"{rules: [{matches: [{path: {value: /c}}], default: {backendRefs: [{name: b2}]}}, {matches: [{path: {value: /b}}], default: {backendRefs: [{name: b1}]}}]}",
			},
			want: []string{`{"rules":[{"default":{"backendRefs":[{"name":"b1"}],"filters":[{"type":"X"}]},"matches":[{"path":{"value":"/b"}}]},{"default":{"backendRefs":[{"name":"b2"}]},"matches":[{"path":{"value":"/c"}}]},{"default":{"backendRefs":[{"name":"a1"}]},"matches":[{"path":{"value":"/a"}}]}]}`}},
		{name: "MeshHTTPRoute confs merge per hostname", kind: refMeshHTTPRoute,
			confs: []string{"{hostnames: [a, b], rules: [{matches: [], default: {backendRefs: [{name: x}]}}]}", "{rules: [{matches: [], default: {backendRefs: [{name: y}]}}]}", "{hostnames: [b], rules: [{matches: [], default: {backendRefs: [{name: z}]}}]}"},
			want: []string{
				`{"hostnames":["a"],"rules":[{"default":{"backendRefs":[{"name":"x"}]},"matches":[]}]}`,
				`{"hostnames":["b"],"rules":[{"default":{"backendRefs":[{"name":"z"}]},"matches":[]}]}`,
				`{"rules":[{"default":{"backendRefs":[{"name":"y"}]},"matches":[]}]}`,
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var confs []any
			for _, c := range tc.confs {
				confs = append(confs, y(t, c))
			}
			before := js(t, confs)
			got, err := Merge(tc.kind, confs)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("got %d results %s, want %d", len(got), js(t, got), len(tc.want))
			}
			for i := range got {
				if g := js(t, got[i]); g != tc.want[i] {
					t.Errorf("result %d:\n got %s\nwant %s", i, g, tc.want[i])
				}
			}
			if js(t, confs) != before {
				t.Error("Merge modified its inputs")
			}
		})
	}
}

func TestMergeNothing(t *testing.T) {
	if got, err := Merge("MeshTimeout", nil); err != nil || got != nil {
		t.Errorf("Merge(nil) = %v, %v; want nothing", got, err)
	}
}
