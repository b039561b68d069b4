{{- /*
Named templates of the chart. Objects keep the kustomize base's names (gateway, relay, aigw-config,
...), so one release per namespace.
*/ -}}

{{- /* Labels of every object; dict: root (the top context). */ -}}
{{- define "aigw.commonLabels" -}}
app.kubernetes.io/part-of: aigw
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/managed-by: {{ .root.Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .root.Chart.Name .root.Chart.Version }}
{{- end }}

{{- /* Labels of one service's objects; dict: name (the service), root. */ -}}
{{- define "aigw.labels" -}}
app.kubernetes.io/name: {{ .name }}
app.kubernetes.io/component: {{ .name }}
{{ include "aigw.commonLabels" . }}
{{- end }}

{{- /* What selects one service's pods: never change it (selectors are immutable); dict: name, root. */ -}}
{{- define "aigw.selectorLabels" -}}
app.kubernetes.io/name: {{ .name }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
{{- end }}

{{- /* The Secret the Deployments read: the existing one, or the one templates/secret.yaml renders. */ -}}
{{- define "aigw.secretName" -}}
{{ default "aigw-secrets" .Values.secrets.existingSecret }}
{{- end }}
