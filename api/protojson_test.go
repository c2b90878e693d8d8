package api

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestProtoJSONNames holds what protobuf's JSON decoder takes beyond the JSON names:
// proto field names and numbers as strings; tags (a map) stay as written.
func TestProtoJSONNames(t *testing.T) {
	in := map[string]any{
		"conf": map[string]any{"listeners": []any{map[string]any{
			"port": "8080", "crossMesh": true, "tags": map[string]any{"some_tag": "1"},
			"resources": map[string]any{"connection_limit": "10"},
		}}},
		"unknown_field": "x",
	}
	want := map[string]any{
		"conf": map[string]any{"listeners": []any{map[string]any{
			"port": int64(8080), "crossMesh": true, "tags": map[string]any{"some_tag": "1"},
			"resources": map[string]any{"connectionLimit": int64(10)},
		}}},
		"unknown_field": "x",
	}
	if diff := cmp.Diff(want, ProtoJSONNames(in, &MeshGatewaySpec{})); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	var got MeshGatewaySpec
	if err := Decode(ProtoJSONNames(in, &MeshGatewaySpec{}), &got); err != nil || got.Conf.Listeners[0].Port != 8080 {
		t.Errorf("decoded %+v, %v", got, err)
	}
}

// TestProtoEnumNames: names and numbers decode; an unknown name does not.
func TestProtoEnumNames(t *testing.T) {
	for _, c := range []struct {
		in   ProtoEnum
		want string
		ok   bool
	}{{"", "NONE", true}, {"HTTP", "HTTP", true}, {"4", "HTTP", true}, {"9", "9", true}, {"http", "", false}} {
		if got, ok := MeshGatewayProtocols().Name(c.in); got != c.want || ok != c.ok {
			t.Errorf("Name(%q) = %q, %v; want %q, %v", c.in, got, ok, c.want, c.ok)
		}
	}
}
