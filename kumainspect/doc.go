// Package kumainspect answers the GET requests of Kuma 2.14's inspect API offline:
// given the objects of Kuma's store, the JSON body and HTTP status Kuma's API server
// returns for `/meshes/{mesh}/dataplanes/{name}/_rules`, `…/_policies`,
// `…/_inbounds/{kri}/_policies`, `…/_outbounds/{kri}/_policies`, `…/_layout` and the
// other inspect endpoints, so that `meshguard inspect --kuma-api PATH` can be compared
// with `kumactl inspect` or `curl` on a live control plane.
//
// The matching and merging are kumarules'; this package is the API server's part:
// reading the store as Kuma reads it (the CRD defaults Kuma's store applies, Kuma's
// spelling of durations), routing a path, the response shapes and Kuma's error
// bodies. It imports no controller-runtime and no command.
package kumainspect
