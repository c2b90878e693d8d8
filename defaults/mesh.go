package defaults

import "github.com/meshguard/meshguard/api"

// meshDefaults writes into a Mesh what Kuma's defaulting webhook writes (the Mesh's
// Default()): each prometheus metrics backend gets its port (5670), path (/metrics),
// tags (kuma.io/service: dataplane-metrics) and a tls mode that agrees with skipMTLS.
// It only adds what is absent. Kuma also drops skipMTLS beside tls.mode providedTLS;
// Apply never removes anything, so that is left to Kuma, and validation accepts the
// pair as Kuma does after its own defaulting.
func meshDefaults(spec map[string]any, rec *recorder) {
	metrics, _ := spec["metrics"].(map[string]any)
	if metrics == nil {
		return
	}
	eachMap(metrics["backends"], func(i string, b map[string]any) {
		if b["type"] != "prometheus" {
			return
		}
		conf, ok := b["conf"].(map[string]any)
		if !ok && b["conf"] != nil {
			return // a conf of the wrong type: validation reports it
		}
		if !ok {
			// a new conf is written whole: one change, not one per member
			conf = map[string]any{}
			prometheusDefaults(conf, func(string, any) {})
			b["conf"] = conf
			rec.add(conf, "spec", "metrics", "backends", i, "conf")
			return
		}
		prometheusDefaults(conf, func(k string, v any) { rec.add(v, "spec", "metrics", "backends", i, "conf", k) })
	})
}

// prometheusDefaults sets the absent defaults of one prometheus conf, calling added
// for each member it writes.
func prometheusDefaults(conf map[string]any, added func(k string, v any)) {
	set := func(k string, v any) {
		if _, present := conf[k]; !present {
			conf[k] = v
			added(k, v)
		}
	}
	set("port", int64(5670))
	set("path", "/metrics")
	if tags, isMap := conf["tags"].(map[string]any); conf["tags"] == nil || isMap && len(tags) == 0 {
		v := map[string]any{api.ServiceTag: "dataplane-metrics"} // Kuma fills empty tags too
		conf["tags"] = v
		added("tags", v)
	}
	if _, has := conf["tls"]; !has {
		mode := "activeMTLSBackend"
		if skip, _ := conf["skipMTLS"].(bool); skip {
			mode = "disabled"
		}
		set("tls", map[string]any{"mode": mode})
	}
}
