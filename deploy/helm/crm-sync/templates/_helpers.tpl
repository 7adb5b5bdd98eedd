{{/* Names and labels shared by every template. */}}
{{- define "crm-sync.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "crm-sync.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else if contains (include "crm-sync.name" .) .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name (include "crm-sync.name" .) | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "crm-sync.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{ include "crm-sync.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end -}}

{{- define "crm-sync.selectorLabels" -}}
app.kubernetes.io/name: {{ include "crm-sync.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{/* The worker pods only (the setup Job's pods carry component: setup). */}}
{{- define "crm-sync.workerSelectorLabels" -}}
{{ include "crm-sync.selectorLabels" . }}
app.kubernetes.io/component: worker
{{- end -}}

{{- define "crm-sync.image" -}}
{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}
{{- end -}}

{{- define "crm-sync.configMapName" -}}
{{ include "crm-sync.fullname" . }}-config
{{- end -}}

{{/* The Secret the pods read: the user's existing one, or the chart's (checked for the required values). */}}
{{- define "crm-sync.secretName" -}}
{{- if .Values.secrets.existingSecret -}}
{{ .Values.secrets.existingSecret }}
{{- else -}}
{{ include "crm-sync.fullname" . }}-secrets
{{- end -}}
{{- end -}}

{{- define "crm-sync.adminScheme" -}}
{{ if .Values.admin.tlsSecretName }}HTTPS{{ else }}HTTP{{ end }}
{{- end -}}

{{/*
The environment of every crm-sync container: the ConfigMap's settings, then each secret by reference
to the Secret (never a value in the pod spec). The optional ones may be absent from the Secret.
*/}}
{{- define "crm-sync.environment" -}}
envFrom:
  - configMapRef:
      name: {{ include "crm-sync.configMapName" . }}
env:
{{- range list "CRM_SYNC_SECRET_KEY" "CRM_SYNC_ADMIN_TOKEN" "DATABASE_URL" }}
  - name: {{ . }}
    valueFrom:
      secretKeyRef:
        name: {{ include "crm-sync.secretName" $ }}
        key: {{ . }}
{{- end }}
{{- range list "TEMPORAL_API_KEY" "COMMERCE_CLIENT_SECRET" "SALESFORCE_CLIENT_SECRET" "SALESFORCE_REFRESH_TOKEN" "HUBSPOT_ACCESS_TOKEN" "HUBSPOT_CLIENT_SECRET" "HUBSPOT_REFRESH_TOKEN" "DYNAMICS_CLIENT_SECRET" }}
  - name: {{ . }}
    valueFrom:
      secretKeyRef:
        name: {{ include "crm-sync.secretName" $ }}
        key: {{ . }}
        optional: true
{{- end }}
{{- end -}}

{{/* Volumes every crm-sync pod mounts: the data directory (the root filesystem is read-only) and the admin TLS files. */}}
{{- define "crm-sync.volumes" -}}
- name: data
  emptyDir: {}
{{- if .Values.admin.tlsSecretName }}
- name: admin-tls
  secret:
    secretName: {{ .Values.admin.tlsSecretName }}
{{- end }}
{{- end -}}

{{- define "crm-sync.volumeMounts" -}}
- name: data
  mountPath: /tmp
{{- if .Values.admin.tlsSecretName }}
- name: admin-tls
  mountPath: /etc/crm-sync/admin-tls
  readOnly: true
{{- end }}
{{- end -}}

{{/*
worker.shutdownGrace in whole seconds, rounded up (500ms, 30s, 2m), and a refusal to render when the
kill timeout would cut the drain short.
*/}}
{{- define "crm-sync.checkDrain" -}}
{{- $grace := toString .Values.worker.shutdownGrace -}}
{{- if not (regexMatch "^[0-9]+(ms|s|m)$" $grace) -}}
{{- fail (printf "worker.shutdownGrace must be a duration such as 500ms, 30s or 2m; got %q" $grace) -}}
{{- end -}}
{{- $seconds := 0 -}}
{{- if hasSuffix "ms" $grace -}}
{{- $seconds = div (add (atoi (trimSuffix "ms" $grace)) 999) 1000 -}}
{{- else if hasSuffix "s" $grace -}}
{{- $seconds = atoi (trimSuffix "s" $grace) -}}
{{- else -}}
{{- $seconds = mul (atoi (trimSuffix "m" $grace)) 60 -}}
{{- end -}}
{{- if le (int .Values.worker.terminationGracePeriodSeconds) (int $seconds) -}}
{{- fail (printf "worker.terminationGracePeriodSeconds (%d) must be more than worker.shutdownGrace (%s = %d s): Kubernetes would kill workers before running activities finish" (int .Values.worker.terminationGracePeriodSeconds) $grace (int $seconds)) -}}
{{- end -}}
{{- end -}}
