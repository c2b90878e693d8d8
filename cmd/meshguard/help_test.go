package main

import (
	"regexp"
	"testing"

	"github.com/spf13/cobra"

	"github.com/meshguard/meshguard/rules"
)

// TestRootHelpNamesEveryCommand keeps the command list of `meshguard --help` true:
// every command it names exists, and every visible command is named.
func TestRootHelpNamesEveryCommand(t *testing.T) {
	root := newRoot(streams{})
	named := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^  meshguard (\S+)`).FindAllStringSubmatch(root.Long, -1) {
		named[m[1]] = true
		if c, _, err := root.Find([]string{m[1]}); err != nil || c == root {
			t.Errorf("root help names %q, which is not a command", m[1])
		}
	}
	for _, c := range root.Commands() {
		if c.Hidden || c.Name() == "help" || c.Name() == "completion" {
			continue
		}
		if !named[c.Name()] {
			t.Errorf("command %q is not named in the root help", c.Name())
		}
	}
	if len(named) == 0 {
		t.Fatal("root help names no command")
	}
}

// TestHelpNamesOnlyRealFlags checks that every --flag a command's help or examples
// mention is a flag of that command (for the root help: of some command).
func TestHelpNamesOnlyRealFlags(t *testing.T) {
	root := newRoot(streams{})
	flagRE := regexp.MustCompile(`(?:^|[\s(\x60])--([a-z][a-z0-9-]*)`)
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Name() == "completion" && c.Parent() == root {
			return // cobra's own text; its --prefix is brew's flag
		}
		for _, m := range flagRE.FindAllStringSubmatch(c.Long+"\n"+c.Example, -1) {
			if !hasFlag(c, m[1]) && !(c == root && anyHasFlag(root, m[1])) {
				t.Errorf("%q help names --%s, which %q does not have", c.CommandPath(), m[1], c.CommandPath())
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}

func hasFlag(c *cobra.Command, name string) bool {
	return c.Flags().Lookup(name) != nil || c.InheritedFlags().Lookup(name) != nil || name == "help"
}

func anyHasFlag(c *cobra.Command, name string) bool {
	if hasFlag(c, name) {
		return true
	}
	for _, sub := range c.Commands() {
		if anyHasFlag(sub, name) {
			return true
		}
	}
	return false
}

// TestRulesOrderedByCode checks that `meshguard rules` lists codes in numeric order
// in both formats (the RBAC analysis codes MG2xx once came after the Linkerd MG3xx).
func TestRulesOrderedByCode(t *testing.T) {
	codeRE := regexp.MustCompile(`(?m)^(?:\| \[)?(MG\d+)`)
	for _, format := range []string{"text", "markdown"} {
		out, _, code := cli(t, "", "rules", "-o", format)
		if code != exitOK {
			t.Fatalf("%s: exit %d", format, code)
		}
		var codes []string
		for _, m := range codeRE.FindAllStringSubmatch(out, -1) {
			codes = append(codes, m[1])
		}
		if len(codes) != len(rules.Catalogue()) {
			t.Errorf("%s: listed %d codes, want %d", format, len(codes), len(rules.Catalogue()))
		}
		for i := 1; i < len(codes); i++ {
			if rules.Number(codes[i-1]) >= rules.Number(codes[i]) {
				t.Errorf("%s: %s listed before %s", format, codes[i-1], codes[i])
			}
		}
	}
}
