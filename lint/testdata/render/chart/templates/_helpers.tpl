{{- define "timeouts.name" -}}
{{ .Release.Name }}-timeouts
{{- end -}}
