// Command meshguard guards service-mesh traffic policies: `lint` checks manifests in
// CI, `default` shows what the mutating webhook stores, `preview` shows the Envoy RBAC
// a MeshTrafficPermission compiles to, `serve` runs the admission webhook and `rules`
// lists the finding codes.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/schema"
)

// Exit codes shared by every subcommand.
const (
	exitOK       = 0
	exitFindings = 1
	exitUsage    = 2
)

// exitError carries an exit code through cobra without printing twice.
type exitError struct{ code int }

func (e exitError) Error() string { return fmt.Sprintf("exit %d", e.code) }

// streams are the command's stdio, swapped in tests.
type streams struct {
	in       io.Reader
	out, err io.Writer
	// stdout is set when out is the real terminal, for colour decisions.
	stdout *os.File
	// stderr is set when err is the real standard error, for progress decisions.
	stderr *os.File
}

func main() {
	os.Exit(runAs(invokedAs(os.Args[0]), os.Args[1:], streams{in: os.Stdin, out: os.Stdout, err: os.Stderr, stdout: os.Stdout, stderr: os.Stderr}))
}

// run executes meshguard with args and returns the process exit code.
func run(args []string, s streams) int { return runAs("meshguard", args, s) }

// runAs is run for a binary invoked as name: "kubectl meshguard" when kubectl runs
// it as a plugin, so help and usage show the command the user typed.
func runAs(name string, args []string, s streams) int {
	root := newRoot(s) // the collector is still held off (internal/gcstart)
	releaseGC(root, args)
	displayAs(root, name)
	root.SetArgs(args)
	root.SetIn(s.in)
	root.SetOut(s.out)
	root.SetErr(s.err)
	err := root.Execute()
	var ee exitError
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &ee):
		return ee.code
	default:
		fmt.Fprintf(s.err, "%s: %v\n", name, err)
		return exitUsage
	}
}

func newRoot(s streams) *cobra.Command {
	root := &cobra.Command{
		Use:   "meshguard",
		Short: "Admission webhook and offline linter for Kuma and Linkerd traffic policies",
		Long: `meshguard checks service-mesh traffic policies before the mesh refuses or misreads
them: Kuma's targetRef policies (MeshTrafficPermission, MeshTimeout, MeshHTTPRoute, ...)
and Linkerd's policies and routes (Server, AuthorizationPolicy, HTTPLocalRateLimitPolicy,
EgressNetwork, HTTPRoute, ...). Gateway API routes (HTTPRoute, GRPCRoute, TCPRoute,
TLSRoute) are checked when a parentRef names a Linkerd Server, an EgressNetwork or a
Service; a route parented only to other gateways is left alone.

The same engine runs behind every command:
  meshguard lint      check manifests in CI (files, directories, stdin)
  meshguard audit     lint every policy stored in a live cluster, write policy reports
  meshguard default   print objects as the mutating webhook would store them
  meshguard preview   show the Envoy RBAC of MeshTrafficPermissions, who may reach Linkerd Servers
  meshguard check     answer whether one client may call one workload, and which policy decides
  meshguard diff      show which clients a policy change lets in or shuts out, and what it changes on every proxy
  meshguard map       show who may call whom across the mesh (matrix, csv, markdown, dot, html), and what a change does to it
  meshguard inspect   show what Kuma makes of the policies per proxy, or answer Kuma's inspect API
  meshguard serve     run the mutating and validating admission webhook
  meshguard rules     list every finding code
  meshguard version   print the meshguard version, commit and embedded CRD releases
  meshguard schema    write JSON Schemas of the Kuma and Linkerd kinds for editors, kubeconform
  meshguard completion  print a shell completion script (bash, zsh, fish, powershell)

Exit codes: 0 success, 1 findings (lint: at or above --fail-on; default: an object
would be denied; check: the call is denied; diff --fail-on error: access is widened; inspect --kuma-api: Kuma answers an error),
2 usage or parse errors.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	cfg := &configOptions{}
	cfg.bind(root)
	root.PersistentPreRunE = func(cmd *cobra.Command, _ []string) error { return cfg.load(cmd) }
	root.AddCommand(newLintCmd(s), newAuditCmd(s), newDefaultCmd(s), newRulesCmd(s), newPreviewCmd(s), newCheckCmd(s), newDiffCmd(s), newMapCmd(s), newInspectCmd(s), newServeCmd(s), newVersionCmd(s, cfg), newSchemaCmd(s))
	// Added now rather than at Execute, so help tests and the docs see it; the
	// scripts go to the output set at this point.
	root.SetOut(s.out)
	root.InitDefaultCompletionCmd()
	// --version prints what the first line of `meshguard version` says.
	root.Version = toolVersion()
	root.SetVersionTemplate("meshguard {{.Version}}\n")
	root.SetFlagErrorFunc(flagError)
	// --help names the .meshguard.yaml the command would read, when there is one.
	help := root.HelpFunc()
	root.SetHelpFunc(func(cmd *cobra.Command, args []string) {
		help(cmd, args)
		if path, err := cfg.locate(); err == nil && path != "" {
			fmt.Fprintf(cmd.OutOrStdout(), "\nSettings from %s (flags override it; --no-config ignores it).\n", path)
		}
	})
	registerCompletions(root)
	return root
}

// settingsFlags binds the deployment settings every door shares, so a policy the
// linter accepts is a policy the webhook admits when both run with the same flags.
func settingsFlags(fs *pflag.FlagSet, st *api.Settings) {
	*st = api.DefaultSettings()
	fs.StringVar((*string)(&st.Mode), "mode", string(st.Mode), "control-plane mode: standalone (non-federated zone), zone (zone federated to a global), global")
	fs.StringVar(&st.Zone, "zone", "", "this zone's name (required with --mode zone); written to kuma.io/zone")
	fs.StringVar(&st.SystemNamespace, "system-namespace", st.SystemNamespace, "the mesh's system namespace; policies there have role system")
	fs.StringVar(&st.DefaultMesh, "default-mesh", st.DefaultMesh, "mesh for objects without a kuma.io/mesh label")
	fs.StringVar((*string)(&st.Sugar), "sugar", string(st.Sugar), "expand: write implied spec defaults (targetRef Mesh, namespaces); keep: add labels only")
	fs.StringVar(&st.KumaVersion, "kuma-version", st.KumaVersion, "the Kuma release the cluster runs ("+strings.Join(schema.KumaVersions(), ", ")+"); objects are checked against its CRDs as the API server checks them")
	releaseFlags(fs, st)
}

func usageErr(format string, a ...any) error {
	return fmt.Errorf(format, a...)
}
