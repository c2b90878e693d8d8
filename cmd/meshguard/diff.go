package main

import (
	"archive/tar"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/kumaauthz"
	"github.com/meshguard/meshguard/linkerdauthz"
	"github.com/meshguard/meshguard/lint"
)

// diffOptions are the flags of `meshguard diff`.
type diffOptions struct {
	lintOptions
	gitBase    string
	failOn     string
	maxClasses int
	linkerd    linkerdauthz.Options
}

func newDiffCmd(s streams) *cobra.Command {
	o := &diffOptions{}
	cmd := &cobra.Command{
		Use:   "diff OLD NEW | diff --git-base REF PATH...",
		Short: "Show which clients a change to the policies lets in or shuts out, and what it changes on every Kuma proxy",
		Long: `Diff compares two sets of manifests (files or directories, read as lint and preview read
them: defaulted as the mutating webhook would, without what the validating webhook would
deny) and prints the authorization difference, not the text difference:

  - Kuma: for every group of proxies the MeshTrafficPermissions select (the groups
    'meshguard preview' compiles, taken over both sets), the clients whose enforced
    decision changes (widened: denied before, allowed now; narrowed: the reverse) or
    whose shadow decision changes, each with the item that decides before and after
    (policy, spec.from[i] or the SPIFFE matcher, action).
  - Linkerd: for every Server (and default-policy view), the clients that gain or
    lose access, with the grant that admits them (AuthorizationPolicy with its
    authentications, ServerAuthorization, accessPolicy, default policy).

Besides authorization, for every Kuma proxy (each Dataplane of the sets) it
compares what every other policy kind gives it (MeshTimeout, MeshRetry,
MeshCircuitBreaker, MeshHTTPRoute, ...: the merged conf of the proxy, of each
inbound and of each outbound, as 'meshguard inspect' shows it) and lists every
field that changes, old -> new, with the policy item that sets it before and
after; proxies that change alike are one line. Proxies in one set only are
listed, not compared.

Clients are not sampled. They are enumerated as the classes of identities the
policies of both sets can tell apart (Kuma: a value of each tag key or none of the
named ones, a service of a mesh; or a SPIFFE ID, SNI, method and path; Linkerd: how
the client authenticates, its source address range, the route), so a client not
in a reported change is decided alike by both sets. A group whose classes pass
--max-classes is reported as not compared, never half compared.

With --git-base REF, OLD is each PATH as it was at the git revision REF (read with
'git archive', so git must be installed and PATH inside a work tree) and NEW is
each PATH as it is now.

--fail-on takes the levels of lint: a widening is an error, a narrowing,
shadow change or change of a proxy's configuration a warning. --fail-on error
(or its synonym widen) fails when some access widens, --fail-on warning when any
access or any proxy's configuration changes; none (the default) never.

Exit codes: 0 nothing at or above --fail-on, 1 something is, 2 usage or input
errors, or, with --fail-on error or warning, nothing found but some group not
compared (with --fail-on warning, also some proxy's configuration).`,
		Example: `  meshguard diff policies-before/ policies-after/
  meshguard diff --git-base origin/main deploy/policies -o markdown > comment.md
  meshguard diff --git-base HEAD~1 mesh/ --fail-on error`,
		RunE: func(cmd *cobra.Command, args []string) error { return o.run(s, args) },
	}
	o.bind(cmd)
	cmd.Flags().StringVar(&o.gitBase, "git-base", "", "compare the PATHs at this git revision (OLD) with the PATHs now (NEW)")
	bindOutput(cmd, &o.output, diffFormats()...)
	bindFailOn(cmd, &o.failOn, failOnNone, "error: some client gains access (widen is a synonym); warning: any client gains or loses access")
	cmd.Flags().IntVar(&o.maxClasses, "max-classes", kumaauthz.DefaultMaxClasses, "most client classes compared per proxy group or Server")
	linkerdFlags(cmd.Flags(), &o.linkerd)
	return cmd
}

// diffSet is one side of the diff as read.
type diffSet struct {
	label      string
	policies   []kumaauthz.Policy
	identities []kumaauthz.Identity
	linkerd    []unstructured.Unstructured
	// kuma are the Kuma objects a cluster would store (MeshTrafficPermissions
	// aside), for what every proxy gets.
	kuma []lint.KumaObject
	// kube are the set's other objects (workloads, Services, Namespaces), from
	// which Kuma derives proxies on Kubernetes.
	kube []*unstructured.Unstructured
	bad  bool
}

func (o *diffOptions) run(s streams, args []string) error {
	eng, err := o.engine()
	if err != nil {
		return err
	}
	if err := checkOutput(o.output, diffFormats()); err != nil {
		return err
	}
	if o.failOn == "widen" {
		o.failOn = string(failOnError)
	}
	if err := checkEnum("fail-on", o.failOn, failOnLevels()); err != nil {
		return err
	}
	if o.maxClasses < 1 {
		return usageErr("--max-classes must be at least 1 (got %d)", o.maxClasses)
	}
	if err := checkLinkerd(o.linkerd); err != nil {
		return err
	}
	defer tuneGCForLint()() // reading two sets of thousands of documents is lint's workload
	sides, cleanup, err := o.sides(s, args)
	defer cleanup()
	if err != nil {
		return err
	}
	// The documents both sides hold alike are read and judged once; the two
	// sides are selected at once (a core each); their notes are written in
	// order afterwards.
	// diff reports no finding at a field: the documents' node trees go as
	// soon as each is read.
	lo := o.loadOptions()
	lo.NoFieldLines = true
	oldLoaded, newLoaded := lint.LoadPair(sides.old, sides.new, lo)
	var oldSet, newSet diffSet
	var oldNotes, newNotes bytes.Buffer
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		oldSet = o.readSet(&oldNotes, eng, oldLoaded, sides.oldLabel, sides.relabel)
	}()
	newSet = o.readSet(&newNotes, eng, newLoaded, sides.newLabel, nil)
	wg.Wait()
	s.err.Write(oldNotes.Bytes())
	s.err.Write(newNotes.Bytes())
	if oldSet.bad || newSet.bad {
		return exitError{exitUsage}
	}
	kuma, err := kumaauthz.DiffPolicies(oldSet.policies, newSet.policies,
		kumaauthz.DiffOptions{SystemNamespace: o.settings.SystemNamespace, MaxClasses: o.maxClasses,
			OldIdentities: oldSet.identities, NewIdentities: newSet.identities})
	if err != nil {
		return err
	}
	var lk []linkerdauthz.ServerDiff
	if linkerdauthz.HasLinkerd(oldSet.linkerd) || linkerdauthz.HasLinkerd(newSet.linkerd) {
		lk = linkerdauthz.Diff(oldSet.linkerd, newSet.linkerd, o.linkerd, o.maxClasses)
	}
	conf, err := kumaConfigDiff(s.err, oldSet, newSet, eng.Settings)
	if err != nil {
		return err
	}
	rep := diffReport{Old: oldSet.label, New: newSet.label, Kuma: kuma, Linkerd: lk, KumaConfig: conf}
	rep.finish()
	if err := rep.write(s.out, o.output); err != nil {
		return err
	}
	if o.failOn != string(failOnNone) && (rep.Widens || (o.failOn == string(failOnWarning) && rep.changed())) {
		return exitError{exitFindings}
	}
	if n := rep.incomplete(); o.failOn != string(failOnNone) && n > 0 {
		// Nothing widens among what was compared, but not everything was.
		fmt.Fprintf(s.err, "meshguard diff: %d proxy groups or Servers were not compared (more than --max-classes %d client classes); whether access widens there is not known\n", n, o.maxClasses)
		return exitError{exitUsage}
	}
	if n := len(rep.KumaConfig.NotCompared); o.failOn == string(failOnWarning) && n > 0 {
		fmt.Fprintf(s.err, "meshguard diff: the configuration of %d proxies was not compared; whether it changes is not known\n", n)
		return exitError{exitUsage}
	}
	return nil
}

// diffSides are the paths of both sides and how to name them: labels for the
// header, relabel for the notes about files of a git snapshot.
type diffSides struct {
	old, new           []string
	oldLabel, newLabel string
	relabel            map[string]string
}

// sides reads the arguments: OLD and NEW, or with --git-base the PATHs now and
// as they were at the revision (extracted into temporary directories, removed by
// cleanup).
func (o *diffOptions) sides(s streams, args []string) (diffSides, func(), error) {
	var d diffSides
	var cleanups []func()
	cleanup := func() {
		for _, c := range cleanups {
			c()
		}
	}
	switch {
	case o.gitBase != "" && len(args) >= 1:
		d.new, d.relabel = args, map[string]string{}
		for _, p := range args {
			if _, err := os.Stat(p); err != nil {
				return d, cleanup, usageErr("%v", err)
			}
			snap, c, note, err := gitSnapshot(o.gitBase, p)
			cleanups = append(cleanups, c)
			if err != nil {
				return d, cleanup, err
			}
			if note != "" {
				fmt.Fprintln(s.err, "meshguard diff: "+note)
			}
			d.old = append(d.old, snap)
			d.relabel[snap] = o.gitBase + ":" + p
		}
		d.oldLabel, d.newLabel = o.gitBase+":"+strings.Join(args, " "), strings.Join(args, " ")
	case o.gitBase != "":
		return d, cleanup, usageErr("with --git-base, diff needs at least one PATH")
	case len(args) == 2:
		d.old, d.new, d.oldLabel, d.newLabel = args[:1], args[1:], args[0], args[1]
	default:
		return d, cleanup, usageErr("diff needs OLD and NEW (got %d arguments), or --git-base REF and PATHs", len(args))
	}
	for _, p := range append(slices.Clone(d.old), d.new...) {
		if p == "-" {
			return d, cleanup, usageErr("diff reads files and directories, not standard input")
		}
		if err := checkPaths([]string{p}); err != nil {
			return d, cleanup, err
		}
	}
	return d, cleanup, nil
}

// readSet selects one side from its loaded documents; notes about skipped
// documents go to notes, with the files of a git snapshot named as at the
// revision (relabel).
func (o *diffOptions) readSet(notes io.Writer, eng lint.Options, loaded lint.Loaded, label string, relabel map[string]string) diffSet {
	_ = lint.WriteNotes(notes, loaded.Skipped)
	in := lint.Preview(loaded.Docs, eng)
	kuma, kumaNotes := lint.KumaObjects(loaded.Docs, eng)
	for _, n := range append(append(in.Notes, kumaNotes...), in.LinkerdNotes...) {
		file := n.File
		for snap, name := range relabel {
			if rest, ok := strings.CutPrefix(file, snap); ok {
				file = name + rest
			}
		}
		fmt.Fprintf(notes, "%s:%d: %s\n", file, n.Line, n.Text)
	}
	var kube []*unstructured.Unstructured
	for _, d := range loaded.Docs {
		if d.Err == nil && d.Object != nil && d.Object.GroupVersionKind().Group != api.KumaGroup {
			kube = append(kube, d.Object)
		}
	}
	return diffSet{label: label, policies: in.Policies, identities: in.Identities, linkerd: in.Linkerd, kuma: kuma, kube: kube, bad: in.Unreadable}
}

// gitSnapshot extracts path as it was at git revision ref into a temporary
// directory: the returned path is the same file or directory there. A path that
// did not exist at ref gives an empty directory and a note saying so.
func gitSnapshot(ref, path string) (snap string, cleanup func(), note string, err error) {
	cleanup = func() {}
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", cleanup, "", usageErr("--git-base: %v", err)
	}
	if abs, err = filepath.EvalSymlinks(abs); err != nil {
		return "", cleanup, "", usageErr("--git-base: %v", err)
	}
	dir := abs
	if fi, err := os.Stat(abs); err == nil && !fi.IsDir() {
		dir = filepath.Dir(abs)
	}
	top, err := git(dir, nil, "rev-parse", "--show-toplevel")
	if err != nil {
		return "", cleanup, "", usageErr("--git-base: %s is not inside a git work tree: %v", path, err)
	}
	top = strings.TrimSpace(top)
	rel, err := filepath.Rel(top, abs)
	if err != nil {
		return "", cleanup, "", usageErr("--git-base: %v", err)
	}
	rel = filepath.ToSlash(rel)
	if _, err := git(top, nil, "rev-parse", "--verify", "--quiet", ref+"^{commit}"); err != nil {
		return "", cleanup, "", usageErr("--git-base: %q is not a revision of the repository at %s", ref, top)
	}
	tmp, err := os.MkdirTemp("", "meshguard-diff-")
	if err != nil {
		return "", cleanup, "", err
	}
	cleanup = func() { os.RemoveAll(tmp) }
	spec := ref + ":" + rel
	if rel == "." {
		spec = ref + ":"
	}
	if _, err := git(top, nil, "cat-file", "-e", spec); err != nil {
		return tmp, cleanup, fmt.Sprintf("%s did not exist at %s: the old set is empty", path, ref), nil
	}
	var tarball bytes.Buffer
	if _, err := git(top, &tarball, "archive", "--format=tar", ref, "--", rel); err != nil {
		cleanup()
		return "", func() {}, "", fmt.Errorf("--git-base: %v", err)
	}
	if err := untar(&tarball, tmp); err != nil {
		cleanup()
		return "", func() {}, "", fmt.Errorf("--git-base: reading git archive: %v", err)
	}
	return filepath.Join(tmp, filepath.FromSlash(rel)), cleanup, "", nil
}

// git runs the git binary in dir; its standard output goes to out when given
// and is returned otherwise. A failure carries git's standard error.
func git(dir string, out *bytes.Buffer, args ...string) (string, error) {
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if out != nil {
		cmd.Stdout = out
	}
	if err := cmd.Run(); err != nil {
		var ee *exec.ExitError
		if msg := strings.TrimSpace(stderr.String()); errors.As(err, &ee) && msg != "" {
			return "", errors.New(msg)
		}
		return "", err
	}
	return stdout.String(), nil
}

// untar writes the regular files and directories of a tar stream under dir,
// refusing names that would leave it.
func untar(r io.Reader, dir string) error {
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		name := filepath.Clean(filepath.FromSlash(h.Name))
		if !filepath.IsLocal(name) {
			return fmt.Errorf("unsafe path %q in archive", h.Name)
		}
		dst := filepath.Join(dir, name)
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(dst, 0o755); err != nil {
				return err
			}
		case tar.TypeReg:
			if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
				return err
			}
			f, err := os.Create(dst)
			if err != nil {
				return err
			}
			_, err = io.Copy(f, tr)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return err
			}
		}
	}
}

// diffFormats are diff's -o values; markdown is for a pull-request comment.
func diffFormats() []format {
	return []format{formatText, formatJSON, formatYAML, formatMarkdown}
}

// changed reports whether some client's access changes at all (widened,
// narrowed or in shadow mode) or some proxy's configuration does, which
// --fail-on warning fails on.
func (r *diffReport) changed() bool {
	if len(r.KumaConfig.Changes) > 0 {
		return true
	}
	for _, g := range r.Kuma {
		if len(g.Changes) > 0 {
			return true
		}
	}
	for _, d := range r.Linkerd {
		if len(d.Changes) > 0 {
			return true
		}
	}
	return false
}
