// Grafana dashboards as a consumer of text: a dashboard's JSON (a
// GrafanaDashboard's `spec.json`, a ConfigMap's `*.json` the sidecar loads)
// reaches Grafana, where `${NAME}` is a dashboard variable (or an input the
// grafana-operator replaces) and `$$` means nothing: no layer after Flux
// unescapes it.

let last: { text: string; dashboard: boolean } | null = null;

/** Whether a text is a Grafana dashboard's JSON: an object with `"panels"` (the last text asked about is remembered: a scalar's occurrences come one after another). */
export function isGrafanaDashboard(text: string): boolean {
  if (last?.text !== text) last = { text, dashboard: text.trimStart().startsWith('{') && text.includes('"panels"') };
  return last.dashboard;
}
