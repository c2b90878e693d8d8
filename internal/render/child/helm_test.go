package child

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestMergeValues(t *testing.T) {
	base := map[string]any{"a": map[string]any{"x": 1, "y": 2}, "b": []any{1}, "c": "keep"}
	over := map[string]any{"a": map[string]any{"y": 3, "z": 4}, "b": []any{2}, "d": map[string]any{"n": 1}}
	want := map[string]any{"a": map[string]any{"x": 1, "y": 3, "z": 4}, "b": []any{2}, "c": "keep", "d": map[string]any{"n": 1}}
	if diff := cmp.Diff(want, mergeValues(base, over)); diff != "" {
		t.Errorf("merge (-want +got):\n%s", diff)
	}
	if base["a"].(map[string]any)["y"] != 2 {
		t.Error("mergeValues changed its input")
	}
}
