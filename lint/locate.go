package lint

// Locate is where a field of the document is written: the file and line a
// finding on fieldPath would point to, mapped back through kustomize patches and
// Helm templates as findings are. `meshguard check` names the deciding item of
// a policy this way.
func (d *Document) Locate(fieldPath string) (file string, line int) {
	return d.locate(fieldPath)
}
