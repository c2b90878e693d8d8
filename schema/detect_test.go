package schema

import (
	"strings"
	"testing"
)

// TestMatchInstalled: a cluster serving one release's Kuma CRDs unchanged matches
// that release exactly and no other, whichever of the two it is; one with a CRD
// changed or missing matches none exactly but is closest to it; one without
// Kuma's CRDs matches nothing.
func TestMatchInstalled(t *testing.T) {
	kuma := Meshes()[0]
	for _, r := range []string{"kuma-2.13", "kuma-2.14"} {
		h, err := EmbeddedHashes(r, kuma.Group)
		if err != nil {
			t.Fatal(err)
		}
		got, err := MatchInstalled(kuma, h)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) < 2 || got[0].Release != r || !got[0].Exact() || got[1].Exact() {
			t.Fatalf("%s installed: %+v", r, got)
		}
		if got[0].Same != len(h) {
			t.Errorf("%s installed: %d same, want %d", r, got[0].Same, len(h))
		}
		changed := Hashes{}
		for k, v := range h {
			changed[k] = v
		}
		changed["meshtimeouts.kuma.io"] = "edited"
		delete(changed, "meshretries.kuma.io")
		got, _ = MatchInstalled(kuma, changed)
		if got[0].Release != r || got[0].Exact() || got[0].Differ != 1 || got[0].Missing != 1 {
			t.Errorf("%s with one CRD edited and one missing: %+v", r, got[0])
		}
	}
	if got, _ := MatchInstalled(kuma, Hashes{"servers.policy.linkerd.io": "x"}); got != nil {
		t.Errorf("no Kuma CRD installed: %+v", got)
	}
}

// TestVersionOfTag: image tags and Linkerd versions map to the embedded release
// they are a patch of, and nothing else does.
func TestVersionOfTag(t *testing.T) {
	kuma, linkerd := Meshes()[0], Meshes()[1]
	for tag, want := range map[string]string{"2.13.10": "2.13", "v2.14.3": "2.14", "2.14": "2.14", "2.12.4": "", "2.140.1": "", "": ""} {
		if got := VersionOfTag(kuma, tag); got != want {
			t.Errorf("kuma %q: %q, want %q", tag, got, want)
		}
	}
	if got := VersionOfTag(linkerd, "edge-26.8.3"); got != "edge-26.8.3" {
		t.Errorf("linkerd edge-26.8.3: %q", got)
	}
	if got := VersionOfTag(linkerd, "edge-26.8.30"); got != "" {
		t.Errorf("linkerd edge-26.8.30: %q", got)
	}
}

// TestDecide: without the flag the detected release is used, the control plane's
// version first; with it the flag wins and a different cluster is a warning; a
// control plane meshguard does not embed is a warning and the flag's default stays.
func TestDecide(t *testing.T) {
	kuma := Meshes()[0]
	h13, err := EmbeddedHashes("kuma-2.13", kuma.Group)
	if err != nil {
		t.Fatal(err)
	}
	m13, _ := MatchInstalled(kuma, h13)
	crds13 := Detected{Mesh: kuma, Installed: len(h13), Matches: m13, Unreadable: "forbidden"}
	cases := []struct {
		name     string
		d        Detected
		flag     string
		explicit bool
		want     string
		warn     []string // substrings, one per warning
	}{
		{"CRDs alone", crds13, "2.14", false, "2.13", nil},
		{"CRDs, flag given", crds13, "2.14", true, "2.14", []string{"--kuma-version 2.14 was given, but the cluster runs kuma 2.13 (CRDs of kuma-2.13)", "CRDs are not 2.14's"}},
		{"flag agrees", crds13, "2.13", true, "2.13", nil},
		{"control plane wins over CRDs", Detected{Mesh: kuma, Matches: m13, ControlPlane: "2.14.3", Where: "d"}, "2.14", false, "2.14", []string{"CRDs are not 2.14's"}},
		{"control plane unknown", Detected{Mesh: kuma, ControlPlane: "2.12.1"}, "2.14", false, "2.14", []string{"runs 2.12.1, a release meshguard does not embed"}},
		{"nothing found", Detected{Mesh: kuma}, "2.14", false, "2.14", nil},
	}
	for _, c := range cases {
		got, warns := c.d.Decide(c.flag, c.explicit)
		if got != c.want || len(warns) != len(c.warn) {
			t.Errorf("%s: %q %q, want %q and %d warnings", c.name, got, warns, c.want, len(c.warn))
			continue
		}
		for i, w := range c.warn {
			if !strings.Contains(warns[i], w) {
				t.Errorf("%s: warning %q lacks %q", c.name, warns[i], w)
			}
		}
	}
	if s := crds13.Summary("2.13", false); !strings.Contains(s, "the 29 CRDs of kuma-2.13, schema for schema; checking against kuma 2.13 (detected)") {
		t.Errorf("summary: %s", s)
	}
}

// TestSharedCRDs: when two releases have the same CRDs (Linkerd's policy CRDs are
// the same across releases), the CRDs alone pick neither; the control plane's
// version does.
func TestSharedCRDs(t *testing.T) {
	linkerd := Meshes()[1]
	same := Hashes{"servers.policy.linkerd.io": "h1", "authorizationpolicies.policy.linkerd.io": "h2"}
	rh := ReleaseHashes{"linkerd-version-2.18": same, "linkerd-edge-26.8.3": same}
	d := Detected{Mesh: linkerd, Installed: 2, Matches: rh.Match(same)}
	if len(d.Matches) != 2 || !d.Matches[0].Exact() || !d.Matches[1].Exact() {
		t.Fatalf("matches: %+v", d.Matches)
	}
	if v := d.Version(); v != "" {
		t.Errorf("shared CRDs pick %q", v)
	}
	if got, _ := d.Decide("edge-26.8.3", false); got != "edge-26.8.3" {
		t.Errorf("shared CRDs: %q, want the default", got)
	}
	if f := d.Found(); !strings.Contains(f, "the same schemas as each of linkerd-version-2.18, linkerd-edge-26.8.3") {
		t.Errorf("found: %s", f)
	}
	d.ControlPlane = "edge-26.8.3"
	if v := d.Version(); v != "edge-26.8.3" {
		t.Errorf("with the control plane's version: %q", v)
	}
}
