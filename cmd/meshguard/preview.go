package main

import (
	"github.com/spf13/cobra"

	"github.com/meshguard/meshguard/lint"
	"github.com/meshguard/meshguard/validate"
)

// analysisRules are the RBAC analysis codes (filled in when compile/ lands).
func analysisRules() []validate.RuleDoc { return nil }

// rbacAnalysis adds the compiler's cross-policy warnings to lint findings.
func rbacAnalysis(objs []lint.Checked) []lint.Finding { return nil }

func newPreviewCmd(s streams) *cobra.Command {
	return &cobra.Command{
		Use:    "preview [PATH|-]...",
		Short:  "Show the Envoy RBAC that MeshTrafficPermissions compile to",
		Hidden: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			return usageErr("preview is not available yet")
		},
	}
}
