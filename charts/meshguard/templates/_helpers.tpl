{{/* meshguard.name is the chart name, overridable. */}}
{{- define "meshguard.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
meshguard.fullname: the release name when it already contains the chart name, so
`helm install meshguard` yields objects named meshguard-* that match the defaults
of `meshguard serve` (--service-name meshguard-webhook, ...).
*/}}
{{- define "meshguard.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "meshguard.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "meshguard.selectorLabels" -}}
app.kubernetes.io/name: {{ include "meshguard.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "meshguard.labels" -}}
helm.sh/chart: {{ include "meshguard.chart" . }}
{{ include "meshguard.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/component: admission-webhook
{{- end }}

{{- define "meshguard.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "meshguard.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/* Names meshguard serve is told about; the webhook configurations, Service and
Secret are cluster objects the rotator looks up by these names. */}}
{{- define "meshguard.serviceName" -}}
{{- printf "%s-webhook" (include "meshguard.fullname" .) | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- define "meshguard.secretName" -}}
{{- if .Values.certRotation.enabled }}
{{- printf "%s-webhook-cert" (include "meshguard.fullname" .) | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- required "certRotation.certSecretName is required when certRotation.enabled is false" .Values.certRotation.certSecretName }}
{{- end }}
{{- end }}
{{- define "meshguard.mutatingName" -}}
{{- printf "%s-mutating" (include "meshguard.fullname" .) }}
{{- end }}
{{- define "meshguard.validatingName" -}}
{{- printf "%s-validating" (include "meshguard.fullname" .) }}
{{- end }}

{{- define "meshguard.image" -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) }}
{{- end }}

{{/*
meshguard.guard fails rendering on settings that would silently weaken the webhook:
the release namespace is excluded from admission (so meshguard cannot block its own
namespace), and the mesh's system namespace holds the policies that matter most.
*/}}
{{- define "meshguard.guard" -}}
{{- if eq .Release.Namespace .Values.systemNamespace }}
{{- fail (printf "install meshguard in its own namespace, not the mesh system namespace %q: the release namespace is excluded from admission" .Values.systemNamespace) }}
{{- end }}
{{- if and (eq .Values.mode "zone") (not .Values.zone) }}
{{- fail "mode zone requires zone (this cluster's zone name)" }}
{{- end }}
{{- if and (ne .Values.mode "zone") .Values.zone }}
{{- fail (printf "zone is only meaningful with mode zone (mode is %q)" .Values.mode) }}
{{- end }}
{{- end }}

{{/* meshguard.clientConfig points a webhook at the Service, or at webhook.url. */}}
{{- define "meshguard.clientConfig" -}}
{{- if .root.Values.webhook.url }}
url: {{ printf "%s%s" (trimSuffix "/" .root.Values.webhook.url) .path | quote }}
{{- else }}
service:
  name: {{ include "meshguard.serviceName" .root }}
  namespace: {{ .root.Release.Namespace }}
  path: {{ .path }}
  port: {{ .root.Values.service.port }}
{{- end }}
{{- end }}

{{/*
meshguard.namespaceSelector keeps kube-system, kube-node-lease (node heartbeats) and
meshguard's own namespace out: nothing there is a mesh policy, and a webhook that
intercepted its own namespace could block its own recovery.
*/}}
{{- define "meshguard.namespaceSelector" -}}
matchExpressions:
  - key: kubernetes.io/metadata.name
    operator: NotIn
    values:
      - kube-system
      - kube-node-lease
      - {{ .Release.Namespace }}
{{- with .Values.extraNamespaceSelectorExpressions }}
{{ toYaml . | indent 2 }}
{{- end }}
{{- end }}

{{/* meshguard.webhookAnnotations: user annotations plus cert-manager's CA injection. */}}
{{- define "meshguard.webhookAnnotations" -}}
{{- $a := deepCopy (default dict .Values.webhook.annotations) }}
{{- if and (not .Values.certRotation.enabled) .Values.certRotation.certManager.injectCAFrom }}
{{- $_ := set $a "cert-manager.io/inject-ca-from" .Values.certRotation.certManager.injectCAFrom }}
{{- end }}
{{- with $a }}
annotations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end }}

{{/* The audit pod's labels: not the webhook's selector labels, so the webhook
Service never sends admission requests to it. */}}
{{- define "meshguard.auditSelectorLabels" -}}
app.kubernetes.io/name: {{ include "meshguard.name" . }}-audit
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "meshguard.auditLabels" -}}
helm.sh/chart: {{ include "meshguard.chart" . }}
{{ include "meshguard.auditSelectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/component: audit
{{- end }}

{{/*
meshguard.privilegedCEL is a CEL expression, true for a request by one of users or
groups. Call it with (dict "users" LIST "groups" LIST); the lists are JSON, which is
CEL's list-of-strings syntax too.
*/}}
{{- define "meshguard.privilegedCEL" -}}
{{- $terms := list }}
{{- with .users }}
{{- $terms = append $terms (printf "request.userInfo.username in %s" (toJson .)) }}
{{- end }}
{{- with .groups }}
{{- $terms = append $terms (printf "(has(request.userInfo.groups) && request.userInfo.groups.exists(g, g in %s))" (toJson .)) }}
{{- end }}
{{- join " || " $terms }}
{{- end }}

{{/*
meshguard.trustedDeleters are the engine's privileged users (api.PrivilegedUsers),
whose writes meshguard never changes and whose deletes it never refuses: the mesh
control plane's service account in the system namespace, Kubernetes' garbage
collector and namespace controller, and the privilegedUsers value.
*/}}
{{- define "meshguard.trustedDeleters" -}}
{{- $u := list (printf "system:serviceaccount:%s:kuma-control-plane" .Values.systemNamespace) "system:serviceaccount:kube-system:generic-garbage-collector" "system:serviceaccount:kube-system:namespace-controller" }}
{{- toJson (concat $u .Values.privilegedUsers | uniq) }}
{{- end }}

{{/*
matchConditions: the API server calls meshguard only when its answer could be other
than "allowed, unchanged". Each condition only leaves out requests whose answer is
known without asking (docs/helm.md, "What each setting protects against"):

- mutating, skip-privileged: meshguard writes nothing for a privileged user's
  object (the mesh's own sync), so the sync never waits for meshguard;
- validating in mode zone, skip-trusted-delete: a delete by the mesh's control plane,
  the garbage collector, the namespace controller or a privileged user is never
  refused, so deleting a namespace or a Mesh never waits for meshguard.
*/}}
{{- define "meshguard.mutatingConditions" -}}
{{- $cel := include "meshguard.privilegedCEL" (dict "users" (include "meshguard.trustedDeleters" . | fromJsonArray) "groups" .Values.privilegedGroups) }}
{{- if $cel }}
- name: skip-privileged
  expression: {{ printf "!(%s)" $cel | toJson }}
{{- end }}
{{- end }}

{{- define "meshguard.validatingConditions" -}}
{{- if eq .Values.mode "zone" }}
{{- $cel := include "meshguard.privilegedCEL" (dict "users" (include "meshguard.trustedDeleters" . | fromJsonArray) "groups" .Values.privilegedGroups) }}
- name: skip-trusted-delete
  expression: {{ printf "request.operation != 'DELETE' || !(%s)" $cel | toJson }}
{{- end }}
{{- end }}

{{/*
The audit's GOMEMLIMIT in bytes: audit.memoryLimitRatio of
audit.resources.limits.memory (bytes, or Ki, Mi, Gi as values.schema.json allows).
*/}}
{{- define "meshguard.auditGoMemLimit" -}}
{{- $q := toString .Values.audit.resources.limits.memory -}}
{{- $unit := get (dict "Ki" 1024 "Mi" 1048576 "Gi" 1073741824) (regexFind "(Ki|Mi|Gi)$" $q) | default 1 -}}
{{- $bytes := mul (regexFind "^[0-9]+" $q | int64) $unit -}}
{{- mulf $bytes .Values.audit.memoryLimitRatio | floor | int64 -}}
{{- end }}

{{/*
meshguard.metricsPeers are the NetworkPolicy peers allowed on a metrics port (the
webhook's and the audit's): networkPolicy.metricsFrom as written, or else one peer,
the scraper's pods in the scraper's namespaces (both must match), kube-prometheus'
Prometheus when metricsScraper is unset.
*/}}
{{- define "meshguard.metricsPeers" -}}
{{- with .Values.networkPolicy.metricsFrom }}
{{- toYaml . }}
{{- else }}
{{- $s := .Values.networkPolicy.metricsScraper | default dict }}
{{- if not (or $s.namespaceSelector $s.podSelector) }}
{{- $s = dict "namespaceSelector" (dict "matchLabels" (dict "kubernetes.io/metadata.name" "monitoring")) "podSelector" (dict "matchLabels" (dict "app.kubernetes.io/name" "prometheus")) }}
{{- end }}
- namespaceSelector:
    {{- toYaml ($s.namespaceSelector | default dict) | nindent 4 }}
  podSelector:
    {{- toYaml ($s.podSelector | default dict) | nindent 4 }}
{{- end }}
{{- end }}
