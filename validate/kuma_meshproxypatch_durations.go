package validate

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
)

// envoyDurations rewrites, in a decoded JSON value read as message md, every
// google.protobuf.Duration written in Go's duration syntax ("5m", "1h30m") into the
// seconds form protojson reads ("300s"). Kuma reads values with the older jsonpb,
// which accepts Go's syntax; without this, meshguard would refuse patches Kuma
// takes. Values that do not parse are left for protojson to report.
func envoyDurations(v any, md protoreflect.MessageDescriptor) any {
	obj, ok := v.(map[string]any)
	if !ok {
		return v
	}
	if md.FullName() == "google.protobuf.Any" {
		url, _ := obj["@type"].(string)
		mt, err := protoregistry.GlobalTypes.FindMessageByURL(url)
		if err != nil || mt.Descriptor().FullName().Parent() == "google.protobuf" {
			return v
		}
		md = mt.Descriptor()
	}
	fields := md.Fields()
	for k, val := range obj {
		fd := fields.ByJSONName(k)
		if fd == nil {
			fd = fields.ByTextName(k)
		}
		if fd == nil || fd.Message() == nil {
			continue
		}
		switch {
		case fd.IsMap():
			if m, ok := val.(map[string]any); ok && fd.MapValue().Message() != nil {
				for mk, mv := range m {
					m[mk] = envoyDurationField(mv, fd.MapValue().Message())
				}
			}
		case fd.IsList():
			if l, ok := val.([]any); ok {
				for i := range l {
					l[i] = envoyDurationField(l[i], fd.Message())
				}
			}
		default:
			obj[k] = envoyDurationField(val, fd.Message())
		}
	}
	return obj
}

// envoyDurationField rewrites one value of message type md.
func envoyDurationField(v any, md protoreflect.MessageDescriptor) any {
	if md.FullName() != "google.protobuf.Duration" {
		return envoyDurations(v, md)
	}
	s, ok := v.(string)
	if !ok {
		return v
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return v
	}
	sign := ""
	if d < 0 {
		sign, d = "-", -d
	}
	frac := strings.TrimRight(fmt.Sprintf("%09d", d%time.Second), "0")
	out := sign + strconv.FormatInt(int64(d/time.Second), 10)
	if frac != "" {
		out += "." + frac
	}
	return out + "s"
}
