package validate

// openMTP is a mesh-wide allow (MG203) carrying the meshguard.io/ignore value v.
func openMTP(v string) string {
	return "apiVersion: kuma.io/v1alpha1\nkind: MeshTrafficPermission\nmetadata:\n  name: open\n  namespace: kuma-system\n  annotations:\n    meshguard.io/ignore: \"" + v + "\"\n" +
		"spec:\n  targetRef:\n    kind: Mesh\n  from:\n    - targetRef:\n        kind: Mesh\n      default:\n        action: Allow\n"
}

// accepted is the good example of every suppression code: a warning the object
// has, accepted with a reason.
var accepted = openMTP("MG203: the demo mesh is open on purpose")

// suppressCatalogue documents the findings about suppressions (the
// meshguard.io/ignore annotation and --ignore-file entries).
func suppressCatalogue() []RuleDoc {
	return []RuleDoc{
		{Code: CodeSuppressSyntax, Severity: SeverityWarning, Summary: "a suppression (meshguard.io/ignore annotation or --ignore-file entry) cannot be read: not \"CODE[,CODE] [until YYYY-MM-DD]: reason\", or a code meshguard does not have; it suppresses nothing", Bad: openMTP("MG2O3: typo in the code"), Good: accepted},
		{Code: CodeSuppressNoReason, Severity: SeverityWarning, Summary: "a suppression gives no reason; it suppresses nothing until it does", Bad: openMTP("MG203"), Good: accepted},
		{Code: CodeSuppressRefused, Severity: SeverityWarning, Summary: "a suppression names a code that cannot be suppressed: an error (the mesh refuses the object whatever the annotation says), MG001 (kubectl apply refuses unknown fields) or MG050-MG059; also warned at admission", Bad: openMTP("MG002: the CRD is wrong"), Good: accepted},
		{Code: CodeSuppressExpired, Severity: SeverityWarning, Summary: "a suppression is past its until/expires date: the findings it accepted are reported again", Bad: openMTP("MG203 until 2020-01-31: open during the migration"), Good: openMTP("MG203 until 2999-12-31: open during the migration")},
		{Code: CodeSuppressUnused, Severity: SeverityWarning, Summary: "a suppression accepted no finding in the run (linter and audit): a stale suppression would hide the next real finding of its code", Bad: openMTP("MG203: open on purpose; MG201: no such finding here"), Good: accepted},
	}
}
