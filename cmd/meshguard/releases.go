package main

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/pflag"
	"k8s.io/client-go/rest"

	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/live"
	"github.com/meshguard/meshguard/schema"
)

// detectTimeout bounds reading the releases from a cluster: a few dozen GETs.
const detectTimeout = 30 * time.Second

// settleReleases reads from the cluster cfg points at which Kuma and Linkerd
// releases and which Gateway API bundle it runs (live.Reader.Releases and
// GatewayAPI) and settles st's --kuma-version, --linkerd-version and
// --gateway-api-version: a version the command line or .meshguard.yaml gave (the
// flag is Changed in flags) wins, else the detected one, else the default (for
// the Gateway API, the settled Linkerd release's). It returns the lines to say:
// one per mesh and one for the Gateway API (what was found, what is used) and a
// warning per mismatch. A cluster that cannot be read is one line too: detection
// only informs.
func settleReleases(ctx context.Context, cfg *rest.Config, st *api.Settings, flags *pflag.FlagSet) []string {
	found, gw, err := detect(ctx, cfg, st.SystemNamespace)
	if err != nil {
		return []string{"releases not detected: " + err.Error()}
	}
	var lines []string
	for _, d := range found {
		v := &st.KumaVersion
		if d.Mesh.Name == "linkerd" {
			v = &st.LinkerdVersion
		}
		explicit := flags.Changed(d.Mesh.Name + "-version")
		use, warnings := d.Decide(*v, explicit)
		*v = use
		lines = append(lines, d.Summary(use, explicit))
		lines = append(lines, warningLines(warnings)...)
	}
	explicit := flags.Changed("gateway-api-version")
	use, warnings := gw.Decide(st.GatewayAPIVersion, explicit)
	st.GatewayAPIVersion = use
	lines = append(lines, gw.Summary(use, st.GatewayAPI(), explicit))
	return append(lines, warningLines(warnings)...)
}

// warningLines marks each warning as one for logReleases and the notes.
func warningLines(warnings []string) []string {
	out := make([]string, len(warnings))
	for i, w := range warnings {
		out[i] = "warning: " + w
	}
	return out
}

// foundReleases is settleReleases for a command that does not choose a release
// (inspect follows Kuma's newest rules): only what was found.
func foundReleases(ctx context.Context, cfg *rest.Config, systemNamespace string) []string {
	found, _, err := detect(ctx, cfg, systemNamespace)
	if err != nil {
		return []string{"releases not detected: " + err.Error()}
	}
	var lines []string
	for _, d := range found {
		lines = append(lines, d.Found())
	}
	return lines
}

// detect reads the mesh releases and the Gateway API bundle of the cluster cfg
// points at, within detectTimeout.
func detect(ctx context.Context, cfg *rest.Config, systemNamespace string) ([]schema.Detected, schema.GatewayAPIDetected, error) {
	ctx, cancel := context.WithTimeout(ctx, detectTimeout)
	defer cancel()
	r, err := live.NewReader(cfg)
	if err != nil {
		return nil, schema.GatewayAPIDetected{}, err
	}
	found, err := r.Releases(ctx, systemNamespace)
	if err != nil {
		return nil, schema.GatewayAPIDetected{}, err
	}
	gw, err := r.GatewayAPI(ctx)
	return found, gw, err
}

// sayReleases writes settleReleases' lines as notes of command cmd.
func sayReleases(s streams, cmd string, lines []string) {
	for _, l := range lines {
		fmt.Fprintf(s.err, "meshguard %s: %s\n", cmd, l)
	}
}
