package schema

import (
	"slices"
	"strings"
	"testing"
)

// routeCRDs are the four route CRDs of bundle b in channel ch, as a cluster
// that installed the bundle serves them.
func routeCRDs(b, ch string) []GatewayAPICRD {
	var out []GatewayAPICRD
	for _, k := range []string{"grpcroutes", "httproutes", "tcproutes", "tlsroutes"} {
		out = append(out, GatewayAPICRD{Name: k + ".gateway.networking.k8s.io", Bundle: b, Channel: ch})
	}
	return out
}

// TestGatewayAPIDecide: the bundle is read from the route CRDs' annotations;
// without --gateway-api-version it is used (a patch release meshguard does not
// embed by the embedded one of its minor), with the flag the flag wins and a
// different bundle is a warning, as for the meshes' releases; mixed bundles, a
// bundle meshguard does not embed and the standard channel are warnings too.
func TestGatewayAPIDecide(t *testing.T) {
	cases := []struct {
		name     string
		g        GatewayAPIDetected
		flag     string
		explicit bool
		want     string
		warn     []string // substrings, one per warning
		found    string
	}{
		{"bundle alone", GatewayAPIDetected{CRDs: routeCRDs("v1.2.1", "experimental")}, "", false, "v1.2.1", nil,
			"4 route CRDs installed, bundle v1.2.1, experimental channel"},
		{"flag given, other bundle", GatewayAPIDetected{CRDs: routeCRDs("v1.2.1", "experimental")}, "v1.5.1", true, "v1.5.1",
			[]string{"--gateway-api-version v1.5.1 was given, but the cluster serves Gateway API v1.2.1 (4 route CRDs annotated gateway.networking.k8s.io/bundle-version, experimental channel): checking against v1.5.1 as told"}, ""},
		{"flag agrees", GatewayAPIDetected{CRDs: routeCRDs("v1.2.1", "experimental")}, "v1.2.1", true, "v1.2.1", nil, ""},
		{"patch of an embedded minor", GatewayAPIDetected{CRDs: routeCRDs("v1.4.0", "experimental")}, "", false, "v1.4.1", nil,
			"bundle v1.4.0, experimental channel (checked with the embedded v1.4.1 of that minor)"},
		{"bundle not embedded", GatewayAPIDetected{CRDs: routeCRDs("v1.0.0", "experimental")}, "", false, "",
			[]string{"Gateway API v1.0.0, a bundle meshguard does not embed"}, ""},
		{"standard channel", GatewayAPIDetected{CRDs: routeCRDs("v1.3.0", "standard")[:2]}, "", false, "v1.3.0",
			[]string{"standard channel"}, "2 route CRDs installed, bundle v1.3.0, standard channel"},
		{"mixed bundles", GatewayAPIDetected{CRDs: append(routeCRDs("v1.2.1", "experimental")[:1], routeCRDs("v1.5.1", "experimental")[1:]...)}, "", false, "",
			[]string{"different bundles (v1.2.1, v1.5.1)"}, "of bundles v1.2.1, v1.5.1"},
		{"nothing installed", GatewayAPIDetected{}, "", false, "", nil, "no route CRDs installed"},
		{"unannotated", GatewayAPIDetected{CRDs: routeCRDs("", "")}, "", false, "", nil, "without the gateway.networking.k8s.io/bundle-version annotation"},
		{"forbidden", GatewayAPIDetected{Unreadable: "reading CRD httproutes.gateway.networking.k8s.io: forbidden"}, "", false, "", nil, "not read (reading CRD"},
	}
	for _, c := range cases {
		got, warns := c.g.Decide(c.flag, c.explicit)
		if got != c.want || len(warns) != len(c.warn) {
			t.Errorf("%s: %q %q, want %q and %d warnings", c.name, got, warns, c.want, len(c.warn))
			continue
		}
		for i, w := range c.warn {
			if !strings.Contains(warns[i], w) {
				t.Errorf("%s: warning %q lacks %q", c.name, warns[i], w)
			}
		}
		if f := c.g.Found(); !strings.Contains(f, c.found) {
			t.Errorf("%s: Found() = %q, lacks %q", c.name, f, c.found)
		}
	}
	g := GatewayAPIDetected{CRDs: routeCRDs("v1.2.1", "experimental")}
	for _, c := range []struct {
		used     string
		explicit bool
		want     string
	}{
		{"v1.2.1", false, "checking against Gateway API v1.2.1 (detected)"},
		{"v1.5.1", true, "checking against Gateway API v1.5.1 (as given)"},
		{"", false, "checking against Gateway API v1.5.1 (the default of the Linkerd release)"},
	} {
		if s := g.Summary(c.used, "v1.5.1", c.explicit); !strings.HasSuffix(s, c.want) {
			t.Errorf("Summary(%q, %v) = %q, want it to end %q", c.used, c.explicit, s, c.want)
		}
	}
}

// TestGatewayAPICRDNames: detection reads the route CRDs of every embedded
// bundle, and the embedded CRDs carry the annotations it reads.
func TestGatewayAPICRDNames(t *testing.T) {
	names, err := GatewayAPICRDNames()
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"grpcroutes.gateway.networking.k8s.io", "httproutes.gateway.networking.k8s.io", "tcproutes.gateway.networking.k8s.io", "tlsroutes.gateway.networking.k8s.io"}
	if !slices.Equal(names, want) {
		t.Errorf("names %v, want %v", names, want)
	}
	for _, v := range GatewayAPIVersions() {
		crds, err := CRDs(GatewayAPIRelease(v))
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range crds {
			if !slices.Contains(names, c.Name) {
				t.Errorf("%s: CRD %s is not among the names detection reads", v, c.Name)
			}
			if got := c.Annotations[GatewayAPIBundleAnnotation]; got != v {
				t.Errorf("%s %s: bundle-version %q, want %q", v, c.Name, got, v)
			}
		}
	}
}
