package schema

import (
	"fmt"
	"strings"
)

// Detected is what a cluster says about the release of one mesh it runs: the CRDs
// it serves, compared with the embedded releases', and the version its control
// plane reports. The doors with a cluster at hand (serve, audit, --kubeconfig)
// build it with package live and print Summary.
type Detected struct {
	Mesh Mesh
	// Installed counts the CRDs of the mesh's group the cluster serves, Versions
	// their served versions; Matches compares them with every embedded release,
	// best first (nil: none of them is installed).
	Installed, Versions int
	Matches             []ReleaseMatch
	// ControlPlane is the version the control plane reports (its image tag, or
	// Linkerd's linkerd-config), read from Where; when it could not be read,
	// Unreadable says why ("no Deployment kuma-system/kuma-control-plane").
	ControlPlane, Where, Unreadable string
	// CRDsUnreadable says why the CRDs could not be read ("" when they were).
	CRDsUnreadable string
}

// Version is the embedded release version the cluster runs, "" when nothing says:
// the control plane's version where an embedded release fits it (CRDs can be the
// same for several releases), else the release whose CRDs the cluster serves
// exactly.
func (d Detected) Version() string {
	if d.ControlPlane != "" {
		if v := VersionOfTag(d.Mesh, d.ControlPlane); v != "" {
			return v
		}
	}
	if exact := d.exact(); len(exact) == 1 {
		return strings.TrimPrefix(exact[0], d.Mesh.prefix())
	}
	return ""
}

// exact lists the releases whose CRDs the cluster serves exactly: several when
// releases share their CRDs (Linkerd's policy CRDs are the same since 2.17), and
// then the CRDs alone do not say which release runs.
func (d Detected) exact() []string {
	var out []string
	for _, m := range d.Matches {
		if m.Exact() {
			out = append(out, m.Release)
		}
	}
	return out
}

// Decide is the version to check against: flag when explicit (the command line or
// .meshguard.yaml set it), else the detected one, else flag (the default).
// Warnings say where the cluster and the choice disagree: an explicit flag that is
// not what the cluster runs, a control plane whose release meshguard does not
// embed, CRDs that are not the chosen release's.
func (d Detected) Decide(flag string, explicit bool) (version string, warnings []string) {
	det := d.Version()
	version = flag
	if !explicit && det != "" {
		version = det
	}
	opt := "--" + d.Mesh.Name + "-version"
	if explicit && det != "" && det != flag {
		warnings = append(warnings, fmt.Sprintf("%s %s was given, but the cluster runs %s %s (%s): checking against %s as told",
			opt, flag, d.Mesh.Name, det, d.evidence(), flag))
	}
	if d.ControlPlane != "" && VersionOfTag(d.Mesh, d.ControlPlane) == "" {
		warnings = append(warnings, fmt.Sprintf("the %s control plane runs %s, a release meshguard does not embed (%s): checking against %s",
			d.Mesh.Name, d.ControlPlane, strings.Join(versionsOf(d.Mesh.prefix()), ", "), version))
	}
	if len(d.Matches) > 0 && !d.matchesExactly(version) {
		warnings = append(warnings, fmt.Sprintf("the cluster's %s CRDs are not %s's (%s): the API server checks objects against its own, meshguard against %s's",
			d.Mesh.Name, version, d.Matches[0], version))
	}
	return version, warnings
}

// matchesExactly reports whether the installed CRDs are exactly version's.
func (d Detected) matchesExactly(version string) bool {
	for _, m := range d.Matches {
		if m.Release == d.Mesh.prefix()+version {
			return m.Exact()
		}
	}
	return false
}

// evidence says what the detected version rests on.
func (d Detected) evidence() string {
	var parts []string
	if d.ControlPlane != "" {
		parts = append(parts, "control plane "+d.ControlPlane)
	}
	if exact := d.exact(); len(exact) == 1 {
		parts = append(parts, "CRDs of "+exact[0])
	}
	return strings.Join(parts, ", ")
}

// Summary is the line a door prints about the mesh: what it found and the version
// it checks against (used), and whether that was detected, given, or the default.
func (d Detected) Summary(used string, explicit bool) string {
	how := "the default"
	switch {
	case explicit:
		how = "as given"
	case d.Version() == used:
		how = "detected"
	}
	return fmt.Sprintf("%s; checking against %s %s (%s)", d.Found(), d.Mesh.Name, used, how)
}

// Found says what the cluster showed: the control plane's version and where it
// was read (or why not), and the CRDs of the mesh's group it serves, compared with
// the embedded releases'.
func (d Detected) Found() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: ", d.Mesh.Name)
	switch {
	case d.ControlPlane != "":
		fmt.Fprintf(&b, "control plane %s (%s)", d.ControlPlane, d.Where)
	case d.Unreadable != "":
		fmt.Fprintf(&b, "control plane not read (%s)", d.Unreadable)
	default:
		b.WriteString("control plane not read")
	}
	b.WriteString("; CRDs: ")
	switch {
	case d.CRDsUnreadable != "":
		fmt.Fprintf(&b, "not read (%s)", d.CRDsUnreadable)
	case d.Installed == 0:
		b.WriteString("none installed")
	case len(d.Matches) == 0:
		fmt.Fprintf(&b, "%d installed, none of an embedded release", d.Installed)
	case len(d.exact()) > 1:
		fmt.Fprintf(&b, "%d installed (%d served versions), the same schemas as each of %s", d.Installed, d.Versions, strings.Join(d.exact(), ", "))
	default:
		fmt.Fprintf(&b, "%d installed (%d served versions), %s", d.Installed, d.Versions, d.Matches[0])
	}
	return b.String()
}
