package main

import (
	"encoding/json"
	"fmt"
	"io"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
	"sigs.k8s.io/yaml"

	"github.com/meshguard/meshguard/schema"
)

// version and commit are set by release builds (make release: -ldflags
// "-X main.version=v1.2.3 -X main.commit=<sha>"), which do not depend on the go tool
// finding the VCS. They are package variables because the linker can only set
// variables; nothing writes them at run time.
var version, commit string

// versionInfo is what `meshguard version` reports; its JSON form is stable for
// scripts (bug reports, the GitHub Action's log).
type versionInfo struct {
	Version string `json:"version"`
	Commit  string `json:"commit,omitempty"`
	// CommitTime is the commit's time (RFC 3339) as the go tool recorded it.
	CommitTime string `json:"commitTime,omitempty"`
	// Modified is true when the binary was built from a work tree with changes.
	Modified  bool   `json:"modified,omitempty"`
	GoVersion string `json:"goVersion"`
	// KumaVersions are the values --kuma-version accepts; DefaultKumaVersion is used
	// without the flag.
	KumaVersions       []string `json:"kumaVersions"`
	DefaultKumaVersion string   `json:"defaultKumaVersion"`
	// CRDReleases names every embedded CRD set, Kuma's and Linkerd's.
	CRDReleases []string `json:"crdReleases"`
	// CRDSources says where each release's CRDs were taken from ("kuma-2.13":
	// "kumahq/kuma v2.13.10"): the patch release the binary's verdicts are held to.
	CRDSources map[string]string `json:"crdSources"`
	// LinkerdVersions and DefaultLinkerdVersion are --linkerd-version's, as
	// KumaVersions and DefaultKumaVersion are --kuma-version's.
	LinkerdVersions       []string `json:"linkerdVersions"`
	DefaultLinkerdVersion string   `json:"defaultLinkerdVersion"`
	// Releases are the embedded releases, one by one, each with its mesh, the
	// version its flag takes and its source tag (or commit): read from each
	// release's SOURCE.md, so a release added as data is listed with no code.
	Releases []releaseInfo `json:"releases"`
	// Config is the .meshguard.yaml the command reads, or why none.
	Config string `json:"config,omitempty"`
}

// releaseInfo is one embedded release in `meshguard version`.
type releaseInfo struct {
	Name    string `json:"name"`
	Mesh    string `json:"mesh"`
	Version string `json:"version"`
	Source  string `json:"source"`
}

// releaseParts splits an embedded release's name into what it is of (kuma,
// linkerd, gateway-api) and its version.
func releaseParts(r string) (of, version string) {
	if v, ok := strings.CutPrefix(r, "gateway-api-"); ok {
		return "gateway-api", v
	}
	of, version, _ = strings.Cut(r, "-")
	return of, version
}

// buildVersion reads the version and commit from what the go tool stamped into the
// binary (module version for go install m@v, VCS data for builds in a checkout), with
// the linker-set ldVersion and ldCommit, when set, taking precedence.
func buildVersion(bi *debug.BuildInfo, ok bool, ldVersion, ldCommit string) versionInfo {
	v := versionInfo{Version: releaseVersion(bi, ok, ldVersion), KumaVersions: schema.KumaVersions(),
		DefaultKumaVersion: schema.DefaultKumaVersion, CRDReleases: schema.Releases(), CRDSources: map[string]string{}}
	v.LinkerdVersions, v.DefaultLinkerdVersion = schema.LinkerdVersions(), schema.DefaultLinkerdVersion
	for _, r := range v.CRDReleases {
		v.CRDSources[r] = schema.Source(r)
		mesh, ver := releaseParts(r)
		v.Releases = append(v.Releases, releaseInfo{Name: r, Mesh: mesh, Version: ver, Source: v.CRDSources[r]})
	}
	if ok {
		v.GoVersion = bi.GoVersion
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				v.Commit = s.Value
			case "vcs.time":
				v.CommitTime = s.Value
			case "vcs.modified":
				v.Modified = s.Value == "true"
			}
		}
	}
	if ldCommit != "" {
		v.Commit = ldCommit
	}
	return v
}

// releaseVersion is meshguard's version alone: the one set at link time, else the
// module version `go install` stamps, else "devel". Every command's --version and
// SARIF's tool version need only this, not the embedded releases' sources that
// buildVersion reads.
func releaseVersion(bi *debug.BuildInfo, ok bool, ldVersion string) string {
	switch {
	case ldVersion != "":
		return ldVersion
	case ok && bi.Main.Version != "" && bi.Main.Version != "(devel)":
		return bi.Main.Version
	}
	return "devel"
}

func (v versionInfo) writeText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "meshguard %s\n", v.Version)
	if v.Commit != "" {
		c := v.Commit
		if v.CommitTime != "" {
			c += " (" + v.CommitTime + ")"
		}
		if v.Modified {
			c += ", modified work tree"
		}
		fmt.Fprintf(&b, "commit:        %s\n", c)
	}
	if v.GoVersion != "" {
		fmt.Fprintf(&b, "go:            %s\n", v.GoVersion)
	}
	fmt.Fprintf(&b, "kuma versions: %s (default %s, --kuma-version)\n", strings.Join(v.KumaVersions, ", "), v.DefaultKumaVersion)
	named := make([]string, 0, len(v.CRDReleases))
	for _, r := range v.CRDReleases {
		if src := v.CRDSources[r]; src != "" {
			r += " (" + src + ")"
		}
		named = append(named, r)
	}
	fmt.Fprintf(&b, "CRDs embedded: %s\n", strings.Join(named, ", "))
	fmt.Fprintf(&b, "linkerd versions: %s (default %s, --linkerd-version)\n", strings.Join(v.LinkerdVersions, ", "), v.DefaultLinkerdVersion)
	b.WriteString("releases (mesh, version, source):\n")
	for _, r := range v.Releases {
		fmt.Fprintf(&b, "  %-8s %-16s %s\n", r.Mesh, r.Version, r.Source)
	}
	if v.Config != "" {
		fmt.Fprintf(&b, "config:        %s\n", v.Config)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func newVersionCmd(s streams, cfg *configOptions) *cobra.Command {
	var output string
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print the meshguard version, commit and embedded CRD releases",
		Long: `Version prints the meshguard version (the release tag, or the module version
go install recorded, or devel), the commit it was built from, the Go version, and the
Kuma and Linkerd CRD releases embedded in the binary: the releases policies are
checked against, each with the tag (or commit) its CRDs and rules were taken from,
and the .meshguard.yaml the commands read here (--config, --no-config). -o json
prints the same as one JSON object.`,
		Example: `  meshguard version
  meshguard version -o json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			bi, ok := debug.ReadBuildInfo()
			v := buildVersion(bi, ok, version, commit)
			v.Config = strings.TrimPrefix(cfg.describe(), "config: ")
			switch output {
			case "text":
				return v.writeText(s.out)
			case "json":
				enc := json.NewEncoder(s.out)
				enc.SetIndent("", "  ")
				return enc.Encode(v)
			case "yaml":
				b, err := yaml.Marshal(v)
				if err != nil {
					return err
				}
				_, err = s.out.Write(b)
				return err
			}
			return checkOutput(output, versionFormats())
		},
	}
	bindOutput(cmd, &output, versionFormats()...)
	return cmd
}

// versionFormats are the -o values of version.
func versionFormats() []format { return []format{formatText, formatJSON, formatYAML} }
