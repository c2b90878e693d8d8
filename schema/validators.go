package schema

import (
	"reflect"
	"slices"
	"sync"

	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/kube-openapi/pkg/validation/spec"
	"k8s.io/kube-openapi/pkg/validation/strfmt"
	"k8s.io/kube-openapi/pkg/validation/validate"
)

// validatorTrees hands out kube-openapi validators of one CRD version whose
// sub-validators are kept between objects. The API server's validator (the one
// apiextensions-apiserver's NewSchemaValidator returns) builds a fresh
// validate.SchemaValidator, eight parts each, for the root and for every field and
// list item it visits, per object; building them was a third of the validator's
// CPU and a fifth of all the bytes `meshguard lint` allocated. kube-openapi lets
// the caller supply that construction (SchemaValidatorOptions.NewValidatorForField
// and NewValidatorForIndex, the hooks the API server's own ratcheting validator
// uses): here each schema node's validator is built once, on first use, and
// re-pointed (SetPath) at the field it checks next, and a node hands the present
// properties of an object to their nodes itself (treeNode.Validate), so that
// kube-openapi's object validator does not copy every property schema per object.
// The checking itself — every rule, every message — is kube-openapi's unchanged
// code; TestTreeValidatorIsTheAPIServers compares the two on the Kuma and Linkerd
// suites.
//
// A validator's path is state, so a tree serves one object at a time: the pool
// gives each goroutine its own.
type validatorTrees struct {
	schema *spec.Schema
	pool   sync.Pool
}

func newValidatorTrees(s *spec.Schema) *validatorTrees {
	t := &validatorTrees{schema: s}
	t.pool.New = func() any { return newTreeNode(s, nil, "") }
	return t
}

// Validate is the API server's SchemaCreateValidator.Validate: kube-openapi's
// result for value against the schema, with a tree of this goroutine's own.
func (t *validatorTrees) Validate(value any, _ ...apiservervalidation.ValidationOption) *validate.Result {
	n := t.pool.Get().(*treeNode)
	defer t.pool.Put(n)
	return n.Validate(value)
}

// treeNode is the validator of one schema node and, built as they are first
// needed, those of its properties, additionalProperties and items.
type treeNode struct {
	sv     *validate.SchemaValidator
	schema *spec.Schema
	root   any
	// names are the node's property names, sorted, when the node hands its
	// properties to their validators itself (see ownsProperties); sv then
	// checks everything else of the object against the schema without them.
	names []string
	// props are the property nodes by name; their schemas are copies owned here,
	// as kube-openapi copies them (its loop variable) before building a validator.
	props map[string]*treeNode
	addl  *treeNode
	items *treeNode
}

func newTreeNode(s *spec.Schema, root any, path string) *treeNode {
	n := &treeNode{schema: s}
	checked := s
	if ownsProperties(s) {
		// kube-openapi's object validator copies every property schema (528
		// bytes, escaping through the field hook) each time it visits an object,
		// present in the object or not: a quarter of every byte a lint run
		// allocated. Without properties its checks of the object itself
		// (required, min/maxProperties) are unchanged, and Validate hands each
		// present property to the validator kube-openapi would have asked for.
		cp := *s
		cp.Properties = nil
		checked = &cp
		for name := range s.Properties {
			n.names = append(n.names, name)
		}
		slices.Sort(n.names)
	}
	n.sv = validate.NewSchemaValidator(checked, root, path, strfmt.Default, func(o *validate.SchemaValidatorOptions) {
		o.NewValidatorForField = n.field
		o.NewValidatorForIndex = n.index
	})
	n.root = n.sv.Root // what kube-openapi hands the property hook
	return n
}

// ownsProperties reports whether a node's properties can be validated outside
// kube-openapi's object validator with the same result: it has properties, and
// neither patternProperties nor additionalProperties (which structural schemas
// never set beside properties) that would make the object validator read them
// for other keys.
func ownsProperties(s *spec.Schema) bool {
	return len(s.Properties) > 0 && len(s.PatternProperties) == 0 && s.AdditionalProperties == nil
}

// SetPath points the node at path, as kube-openapi's validators are pointed.
func (n *treeNode) SetPath(path string) {
	n.sv.SetPath(path)
}

// Applies is kube-openapi's SchemaValidator.Applies.
func (n *treeNode) Applies(source any, kind reflect.Kind) bool {
	return n.sv.Applies(source, kind)
}

// Validate is kube-openapi's SchemaValidator.Validate on data, plus, for a node
// that owns its properties, the object validator's loop over them: each
// property present in the object validated at "path.name" ("name" at the root)
// and merged into the result, in the order of the names.
func (n *treeNode) Validate(data any) *validate.Result {
	res := n.sv.Validate(data)
	val, ok := data.(map[string]any)
	if n.names == nil || !ok {
		return res
	}
	for _, name := range n.names {
		v, ok := val[name]
		if !ok {
			continue
		}
		path := name
		if n.sv.Path != "" {
			path = n.sv.Path + "." + name
		}
		c := n.props[name]
		if c == nil {
			c = n.newProp(name, n.root, path)
		}
		res.Merge(c.at(path).Validate(v))
	}
	return res
}

// field is NewValidatorForField for the object validator of n: the validator of
// property name, or of the additionalProperties schema, pointed at path. Anything
// else (patternProperties, which structural schemas do not have) is built fresh,
// as kube-openapi would.
func (n *treeNode) field(name string, s *spec.Schema, root any, path string, formats strfmt.Registry, opts ...validate.Option) validate.ValueValidator {
	switch ap := n.schema.AdditionalProperties; {
	case ap != nil && ap.Schema != nil && s == ap.Schema:
		if n.addl == nil {
			n.addl = newTreeNode(ap.Schema, root, path)
		}
		return n.addl.at(path)
	case len(n.schema.PatternProperties) == 0:
		if c := n.props[name]; c != nil {
			return c.at(path)
		}
		if _, ok := n.schema.Properties[name]; ok {
			return n.newProp(name, root, path).at(path)
		}
	}
	return validate.NewSchemaValidator(s, root, path, formats, opts...)
}

// newProp builds the node of property name on its first use.
func (n *treeNode) newProp(name string, root any, path string) *treeNode {
	p := n.schema.Properties[name] // a copy: the node keeps its own
	if n.props == nil {
		n.props = map[string]*treeNode{}
	}
	c := newTreeNode(&p, root, path)
	n.props[name] = c
	return c
}

// index is NewValidatorForIndex for the list validator of n: the validator of
// the items schema, pointed at path ("spec.to[3]").
func (n *treeNode) index(i int, s *spec.Schema, root any, path string, formats strfmt.Registry, opts ...validate.Option) validate.ValueValidator {
	if it := n.schema.Items; it != nil && it.Schema != nil && s == it.Schema {
		if n.items == nil {
			n.items = newTreeNode(it.Schema, root, path)
		}
		return n.items.at(path)
	}
	return validate.NewSchemaValidator(s, root, path, formats, opts...)
}

// at points n's validator at path and returns it.
func (n *treeNode) at(path string) validate.ValueValidator {
	if n.sv.Path != path {
		n.sv.SetPath(path)
	}
	return n
}
