package lint

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/kustomize/api/resource"
	"sigs.k8s.io/kustomize/api/types"
)

// buildMetadataKey is the kustomization field whose originAnnotations option
// makes kustomize write each object's origin into config.kubernetes.io/origin.
const buildMetadataKey = "buildMetadata"

// sources maps the origin files of one build to their parsed documents, so each
// file is read once however many objects came from it.
type sources map[string][]Document

// place points d (a rendered object) at its origin: the source file kustomize
// recorded and, when the object can be found in that file, the line of the
// field in it. Without a usable origin (a remote base, an annotation the
// kustomization did not let meshguard add) the object is reported against the
// kustomization file, line 1; its place in the build output stays in d.Rendered.
// It returns the object's name in its source, the name patches use.
func (s sources) place(d *Document, o *resource.Origin, dir, kfile string) string {
	d.File, d.Line, d.lines = kfile, 1, lineIndex{}
	name := d.Object.GetName()
	switch {
	case o == nil || o.Repo != "":
		return name
	case o.Path == "" && o.ConfiguredIn != "":
		// Made by a generator (configMapGenerator, secretGenerator): the
		// kustomization that configured it is the place to edit.
		d.File = filepath.Join(dir, o.ConfiguredIn)
		return name
	case o.Path == "":
		return name
	}
	path := filepath.Join(dir, o.Path)
	d.File = path
	if src := matchSource(s.docs(path), d.Object); src != nil {
		d.Line, d.lines = src.Line, src.lines
		name = src.Object.GetName()
	}
	return name
}

// patchDocs returns the documents of the files the build read that are neither
// kustomization files nor the origin of any object: patches, mostly, in
// lexical order of their paths.
func (s sources) patchDocs(b *build, origins []*resource.Origin) []*Document {
	resources := map[string]bool{}
	for _, o := range origins {
		if o != nil && o.Path != "" && o.Repo == "" {
			if abs, err := canonical(filepath.Join(b.dir, o.Path)); err == nil {
				resources[abs] = true
			}
		}
	}
	base, err := canonical(b.dir)
	if err != nil {
		return nil
	}
	var paths []string
	for abs := range b.reads {
		if resources[abs] || isKustomizationFile(filepath.Base(abs)) {
			continue
		}
		path := abs
		if rel, err := filepath.Rel(base, abs); err == nil {
			path = filepath.Join(b.dir, rel)
		}
		paths = append(paths, path)
	}
	slices.Sort(paths)
	var out []*Document
	for _, p := range paths {
		docs := s.docs(p)
		for i := range docs {
			if docs[i].Object != nil {
				out = append(out, &docs[i])
			}
		}
	}
	return out
}

// matchPatches picks the patch documents that name the object: same kind, and
// the name the object has in its source (patches name objects before
// namePrefix and nameSuffix apply).
func matchPatches(patches []*Document, obj *unstructured.Unstructured, name string) []*Document {
	var out []*Document
	for _, p := range patches {
		o := p.Object
		if obj != nil && o.GetKind() == obj.GetKind() && o.GroupVersionKind().Group == obj.GroupVersionKind().Group && o.GetName() == name {
			out = append(out, p)
		}
	}
	return out
}

// locate is where a finding on fieldPath of d points: for a rendered object,
// the first patch that sets exactly that field (the patch is where a value a
// patch brought in must be fixed), else the source file, at the field or its
// nearest ancestor there; for a Helm template, mapped back to the template
// source line when one looks like it.
func (d *Document) locate(fieldPath string) (string, int) {
	if fieldPath != "" && d.Rendered != nil {
		for _, p := range d.Rendered.patches {
			if line, exact := p.lineOf(fieldPath); exact {
				return p.File, line
			}
		}
	}
	return d.File, d.sourceLine(d.LineOf(fieldPath))
}

func (s sources) docs(path string) []Document {
	if docs, ok := s[path]; ok {
		return docs
	}
	var docs []Document
	if data, err := readBounded(path); err == nil && len(data) <= MaxFileBytes {
		docs = LoadBytes(path, data)
	}
	s[path] = docs
	return docs
}

// readBounded reads at most MaxFileBytes+1 bytes of a file, so the caller can
// tell a file over the bound from one at it.
func readBounded(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
}

// matchSource finds the document in an origin file that a rendered object came
// from. kustomize may have renamed it (namePrefix, nameSuffix) or moved it to
// another namespace, so: the only object of the same kind, else the one with
// the same name, else the one with the longest name the rendered name contains.
// Nil when nothing fits (then the finding keeps line 1 of the file).
func matchSource(docs []Document, obj *unstructured.Unstructured) *Document {
	if obj == nil {
		return nil
	}
	var same []*Document
	for i := range docs {
		o := docs[i].Object
		if o != nil && o.GetKind() == obj.GetKind() && o.GroupVersionKind().Group == obj.GroupVersionKind().Group {
			same = append(same, &docs[i])
		}
	}
	if len(same) == 1 {
		return same[0]
	}
	var best *Document
	for _, d := range same {
		name := d.Object.GetName()
		if name == obj.GetName() {
			return d
		}
		if name != "" && strings.Contains(obj.GetName(), name) && (best == nil || len(name) > len(best.Object.GetName())) {
			best = d
		}
	}
	return best
}

// withOriginAnnotations returns the kustomization file with originAnnotations
// added to its buildMetadata, so kustomize records where every object came from
// (kustomize passes the root's buildMetadata down to every base). It appends one
// top-level line rather than re-encoding the file, so nothing else the user
// wrote can change meaning, and only when the file is a plain block mapping
// without buildMetadata; added is false when the file was left as it is.
// userAsked is true when the file itself asks for origin annotations: then they
// are part of the output the user wants and stay.
func withOriginAnnotations(data []byte) (out []byte, added, userAsked bool) {
	keys, ok := topLevelKeys(data)
	if !ok {
		return data, false, false
	}
	if v, found := keys[buildMetadataKey]; found {
		return data, false, v != nil && sequenceHas(v, types.OriginAnnotations)
	}
	out = bytes.Clone(data)
	if len(out) > 0 && out[len(out)-1] != '\n' {
		out = append(out, '\n')
	}
	out = append(out, buildMetadataKey+": ["+types.OriginAnnotations+"]\n"...)
	after, ok := topLevelKeys(out)
	if !ok || len(after) != len(keys)+1 || after[buildMetadataKey] == nil || !sequenceHas(after[buildMetadataKey], types.OriginAnnotations) {
		return data, false, false
	}
	return out, true, false
}

// topLevelKeys parses a single-document YAML file whose root is a block
// mapping starting at column 1 and returns its keys and values.
func topLevelKeys(data []byte) (map[string]*yaml.Node, bool) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := decodeSafely(dec, &doc); err != nil || len(doc.Content) == 0 {
		return nil, false
	}
	var extra yaml.Node
	if err := decodeSafely(dec, &extra); err != io.EOF {
		return nil, false
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode || root.Style&yaml.FlowStyle != 0 || len(root.Content) == 0 || root.Content[0].Column != 1 {
		return nil, false
	}
	keys := map[string]*yaml.Node{}
	for i := 0; i+1 < len(root.Content); i += 2 {
		keys[root.Content[i].Value] = root.Content[i+1]
	}
	return keys, true
}

func sequenceHas(n *yaml.Node, value string) bool {
	if n.Kind != yaml.SequenceNode {
		return false
	}
	for _, item := range n.Content {
		if item.Kind == yaml.ScalarNode && item.Value == value {
			return true
		}
	}
	return false
}
