package main

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/audit"
	"github.com/meshguard/meshguard/schema"
	"github.com/meshguard/meshguard/validate"
)

// flagError is the root's FlagErrorFunc: a flag error names the command's help
// and, for an unknown flag, the closest flag the command has.
func flagError(c *cobra.Command, err error) error {
	help := fmt.Sprintf("see '%s --help'", c.CommandPath())
	// pflag's errors for a flag the command does not have: "unknown flag:
	// --foo" and "unknown shorthand flag: 'x' in -x". Compiled here, on the
	// error path, so no start pays for it.
	m := regexp.MustCompile(`^unknown (?:shorthand )?flag: (?:'(\S)' in )?(-{1,2}[^\s=]+)`).FindStringSubmatch(err.Error())
	if m == nil {
		return fmt.Errorf("%w; %s", err, help)
	}
	given := m[2]
	if m[1] != "" {
		given = "-" + m[1]
	}
	msg := "unknown flag " + given
	// A shorthand (-Z) is one letter: any flag is "close" to it.
	if s := closestFlag(c, strings.TrimLeft(given, "-")); s != "" && m[1] == "" {
		msg += " (did you mean --" + s + "?)"
	}
	return fmt.Errorf("%s; %s", msg, help)
}

// closestFlag is the name of c's flag nearest to name by edit distance, when
// it is near enough to be a typo (a third of the name's length, at least 2), or
// a flag that name is a prefix of; "" when none is.
func closestFlag(c *cobra.Command, name string) string {
	best, bestDist := "", max(2, len(name)/3)+1
	visit := func(f *pflag.Flag) {
		if f.Hidden {
			return
		}
		d := editDistance(name, f.Name)
		if len(name) >= 3 && strings.HasPrefix(f.Name, name) {
			d = min(d, 1)
		}
		if d < bestDist || (d == bestDist && f.Name < best) {
			best, bestDist = f.Name, d
		}
	}
	c.Flags().VisitAll(visit)
	c.InheritedFlags().VisitAll(visit)
	return best
}

// editDistance is the Levenshtein distance between a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// enumFlags are the values of the flags that take one of a fixed set, for shell
// completion; -o and --fail-on register theirs where they are bound. A flag
// added to any command under one of these names completes without more code.
func enumFlags() map[string][]string {
	auto := []string{"auto", "always", "never"}
	return map[string][]string{
		"mode":                     {string(api.ModeStandalone), string(api.ModeZone), string(api.ModeGlobal)},
		"sugar":                    {string(api.SugarExpand), string(api.SugarKeep)},
		"kuma-version":             schema.KumaVersions(),
		"linkerd-version":          schema.LinkerdVersions(),
		"gateway-api-version":      schema.GatewayAPIVersions(),
		"color":                    auto,
		"progress":                 auto,
		"form":                     formValues(),
		"preview-form":             formValues(),
		"mesh-type":                {"auto", "kuma", "linkerd"},
		"report-format":            {string(audit.FormatOpenReports), string(audit.FormatWGPolicy)},
		"log-format":               {"json", "console"},
		"log-level":                {"debug", "info", "warn", "error"},
		"linkerd-default-policy":   validate.InboundPolicies,
		"linkerd-server-conflicts": {"warn", "deny"},
		"by":                       mapByValues(),
	}
}

// registerCompletions gives every enum flag of every command its values for
// shell completion (see enumFlags), leaving flags that already have one.
func registerCompletions(c *cobra.Command) { registerEnumCompletions(c, enumFlags()) }

// registerEnumCompletions registers values on c and its subcommands: the values
// are listed once per start, not once per command.
func registerEnumCompletions(c *cobra.Command, values map[string][]string) {
	c.LocalFlags().VisitAll(func(f *pflag.Flag) {
		if v, ok := values[f.Name]; ok {
			if _, has := c.GetFlagCompletionFunc(f.Name); !has {
				completeEnum(c, f.Name, v)
			}
		}
	})
	for _, sub := range c.Commands() {
		registerEnumCompletions(sub, values)
	}
}
