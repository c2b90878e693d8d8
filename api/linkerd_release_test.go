package api

import "testing"

// TestLinkerdBefore: releases compare in release order (edge-26.8.3 after
// version-2.20, though it sorts first as a string), "" is the newest.
func TestLinkerdBefore(t *testing.T) {
	for _, tc := range []struct {
		version, release string
		want             bool
	}{
		{LinkerdV218, LinkerdV219, true},
		{LinkerdV219, LinkerdV219, false},
		{LinkerdV220, LinkerdEdge, true},
		{LinkerdEdge, LinkerdV220, false},
		{"", LinkerdV220, false},
		{"", LinkerdEdge, false},
		{LinkerdV218, LinkerdEdge, true},
	} {
		if got := LinkerdBefore(tc.version, tc.release); got != tc.want {
			t.Errorf("LinkerdBefore(%q, %q) = %v, want %v", tc.version, tc.release, got, tc.want)
		}
	}
	if DefaultLinkerdVersion != LinkerdReleases()[len(LinkerdReleases())-1] {
		t.Errorf("the default Linkerd release %s is not the newest profile", DefaultLinkerdVersion)
	}
	for in, want := range map[string]string{"2.18": LinkerdV218, "2.20": LinkerdV220, LinkerdEdge: LinkerdEdge, "version-2.19": LinkerdV219} {
		if got := LinkerdVersionName(in); got != want {
			t.Errorf("LinkerdVersionName(%q) = %q, want %q", in, got, want)
		}
	}
}
