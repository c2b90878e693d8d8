package inspectscale

import (
	"bytes"
	"strings"
	"testing"

	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/kumainspect"
)

// TestWriteIsReadAsMeant: the generated input is read whole by kumainspect (every
// document a Kuma resource), has the counts the shape says, and every proxy has a
// view with policies on its inbound and outbounds.
func TestWriteIsReadAsMeant(t *testing.T) {
	var buf bytes.Buffer
	shape := Shape{Proxies: 100, Policies: 140}
	if err := shape.Write(&buf); err != nil {
		t.Fatal(err)
	}
	reg := api.DefaultRegistry()
	objs, err := kumainspect.Decode(strings.NewReader(buf.String()), "gen", reg)
	if err != nil {
		t.Fatal(err)
	}
	if want := 1 + 100 + 10 + 140; len(objs) != want {
		t.Fatalf("%d objects, want %d", len(objs), want)
	}
	s, err := kumainspect.NewStore(objs, reg, nil)
	if err != nil {
		t.Fatal(err)
	}
	views, err := s.Views("default")
	if err != nil || len(views) != 100 {
		t.Fatalf("%d views, %v", len(views), err)
	}
	for _, v := range views {
		if len(v.Outbounds) != 3 || len(v.Inbounds) != 1 {
			t.Errorf("%s: %d outbounds, %d inbounds; want 3 and 1", v.Dataplane, len(v.Outbounds), len(v.Inbounds))
		}
		entries := len(v.Inbounds[0].Entries)
		for _, o := range v.Outbounds {
			entries += len(o.Entries)
		}
		if entries == 0 {
			t.Errorf("%s: no policy reaches it", v.Dataplane)
		}
	}
}
