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

{{/* meshguard.namespaceSelector keeps kube-system and meshguard's own namespace out. */}}
{{- define "meshguard.namespaceSelector" -}}
matchExpressions:
  - key: kubernetes.io/metadata.name
    operator: NotIn
    values:
      - kube-system
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
