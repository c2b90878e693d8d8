package kumainspect

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/meshguard/meshguard/api"
)

// configBody is the body of …/_config (GetDataplaneXDSConfigResponse).
type configBody struct {
	Diff *[]patchOp     `json:"diff,omitempty"`
	XDS  map[string]any `json:"xds"`
}

// config answers …/dataplanes/{name}/_config[?shadow=…&include=diff]: the proxy's
// Envoy configuration, with shadow the policies marked kuma.io/effect: shadow
// taking effect, and with include=diff the patch from the configuration without
// them. The query is checked as Kuma checks it; the configuration is built only
// for the proxies xds.go describes, any other gets 501.
func (s *Store) config(mesh, name string, query map[string][]string) Response {
	m, found := s.find(api.KindMesh, "", mesh)
	if !found {
		return notFound("Failed to retrieve Mesh")
	}
	shadow := false
	if v := first(query["shadow"]); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return badRequest("unsupported value for query parameter 'shadow'")
		}
		shadow = b
	}
	diff := false
	if v := first(query["include"]); v != "" {
		for _, part := range strings.Split(v, ",") {
			if part != "diff" {
				return badRequest("unsupported value for query parameter 'include'")
			}
			diff = true
		}
	}
	if _, found := s.find(api.KindDataplaneInsight, mesh, name); !found {
		return notFound("Failed to fetch dataplane insight")
	}
	dp, found := s.find(api.KindDataplane, mesh, name)
	if !found {
		return notFound("Failed to inspect proxy config")
	}
	xds, err := s.proxyXDS(m, dp, shadow)
	if err != nil {
		return notImplemented(name, err)
	}
	out := configBody{XDS: xds}
	if diff {
		current, err := s.proxyXDS(m, dp, false)
		if err != nil {
			return notImplemented(name, err)
		}
		ops := []patchOp{}
		jsonDiff(current, xds, "", &ops)
		out.Diff = &ops
	}
	return ok(out)
}

// notImplemented is meshguard's answer for a proxy whose Envoy configuration it
// does not build.
func notImplemented(name string, why error) Response {
	return errorResponse(http.StatusNotImplemented, "Not Implemented",
		fmt.Sprintf("meshguard builds the Envoy configuration of plain TCP sidecars only; dataplane %s: %v", name, why))
}

func first(v []string) string {
	if len(v) == 0 {
		return ""
	}
	return v[0]
}
