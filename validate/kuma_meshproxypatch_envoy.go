package validate

import (
	"bytes"
	"encoding/json"

	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	listenerv3 "github.com/envoyproxy/go-control-plane/envoy/config/listener/v3"
	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	hcmv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/http_connection_manager/v3"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/known/emptypb"
	"sigs.k8s.io/yaml"
)

// envoyMessage returns a fresh Envoy message of the type a MeshProxyPatch
// modification section holds.
func envoyMessage(section string) proto.Message {
	switch section {
	case "cluster":
		return &clusterv3.Cluster{}
	case "listener":
		return &listenerv3.Listener{}
	case "networkFilter":
		return &listenerv3.Filter{}
	case "httpFilter":
		return &hcmv3.HttpFilter{}
	default:
		return &routev3.VirtualHost{}
	}
}

// envoyAnyResolver resolves the type URLs of `typed_config` Any values. A type this
// binary does not link (Kuma links every Envoy extension; meshguard only a few) is
// read as an opaque message, so that its contents go unchecked rather than refused:
// a false refusal of a valid patch is worse than a missed one.
type envoyAnyResolver struct{}

func (envoyAnyResolver) FindMessageByName(n protoreflect.FullName) (protoreflect.MessageType, error) {
	if mt, err := protoregistry.GlobalTypes.FindMessageByName(n); err == nil {
		return mt, nil
	}
	return (&emptypb.Empty{}).ProtoReflect().Type(), nil
}

func (r envoyAnyResolver) FindMessageByURL(url string) (protoreflect.MessageType, error) {
	if mt, err := protoregistry.GlobalTypes.FindMessageByURL(url); err == nil {
		return mt, nil
	}
	return (&emptypb.Empty{}).ProtoReflect().Type(), nil
}

func (envoyAnyResolver) FindExtensionByName(n protoreflect.FullName) (protoreflect.ExtensionType, error) {
	return protoregistry.GlobalTypes.FindExtensionByName(n)
}

func (envoyAnyResolver) FindExtensionByNumber(m protoreflect.FullName, f protoreflect.FieldNumber) (protoreflect.ExtensionType, error) {
	return protoregistry.GlobalTypes.FindExtensionByNumber(m, f)
}

// envoyParse reads a modification's value (YAML or JSON text) into msg as Kuma does:
// unknown fields are ignored, everything else must fit the message's types. With
// check it also applies Envoy's own field constraints (protoc-gen-validate), as Kuma
// does for the values it adds whole (not for patches).
func envoyParse(value string, msg proto.Message, check bool) error {
	js, err := yaml.YAMLToJSON([]byte(value))
	if err != nil {
		js = []byte(value)
	}
	if bytes.Equal(bytes.TrimSpace(js), []byte("null")) {
		js = []byte("{}")
	}
	var tree any
	dec := json.NewDecoder(bytes.NewReader(js))
	dec.UseNumber()
	if dec.Decode(&tree) == nil && !dec.More() {
		if out, err := json.Marshal(envoyDurations(tree, msg.ProtoReflect().Descriptor())); err == nil {
			js = out
		}
	}
	opts := protojson.UnmarshalOptions{DiscardUnknown: true, Resolver: envoyAnyResolver{}}
	if err := opts.Unmarshal(js, msg); err != nil {
		return err
	}
	if !check {
		return nil
	}
	if v, ok := msg.(interface{ Validate() error }); ok {
		return v.Validate()
	}
	return nil
}
