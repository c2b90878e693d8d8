{{- /*
meshguard.failurePolicy renders a meshguard webhook's failurePolicy: the configured
one, or Ignore with failOpenUntilReady, which `meshguard serve --fail-open-until-ready`
switches to Fail after its first successful self-check (docs/webhook.md). Helm's
three-way merge leaves the switched value alone on upgrade: the chart's Ignore did
not change between releases. Usage: include "meshguard.failurePolicy" (list . <policy>).
*/}}
{{- define "meshguard.failurePolicy" -}}
{{- $root := index . 0 -}}
{{- $policy := index . 1 -}}
{{- if $root.Values.failOpenUntilReady -}}
{{- if ne $policy "Fail" -}}
{{- fail "failOpenUntilReady switches the webhooks to failurePolicy Fail once ready; it needs failurePolicy.mutating and failurePolicy.validating Fail" -}}
{{- end -}}
{{- if not $root.Values.certRotation.enabled -}}
{{- fail "failOpenUntilReady needs certRotation.enabled: meshguard reads the caBundle it injects for its self-check" -}}
{{- end -}}
Ignore
{{- else -}}
{{ $policy }}
{{- end -}}
{{- end -}}
