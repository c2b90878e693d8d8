// Package kumadiff answers "what does this change do to every Kuma proxy?": it
// compares what two sets of objects give each proxy (kumainspect's View of it on
// each side: the whole proxy, every inbound and every outbound, each policy kind's
// merged conf with the items it came from) field by field, and groups the
// proxies whose change is the same into one line. `meshguard diff` reports it
// beside the authorization difference; docs/diff.md documents the JSON.
package kumadiff
