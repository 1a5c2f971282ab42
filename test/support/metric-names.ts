/**
 * Metric names on both sides of a dashboard check: the families a Prometheus text exposition declares,
 * and the metric names a Grafana dashboard's PromQL expressions select.
 */

/** Family name -> type (`counter`, `gauge`, `histogram`, ...) from the `# TYPE` lines of an exposition. */
export function metricFamilies(exposition: string): Map<string, string> {
  const families = new Map<string, string>();
  for (const match of exposition.matchAll(/^# TYPE (\S+) (\S+)$/gm)) families.set(match[1]!, match[2]!);
  return families;
}

/** The family a sample or selector name belongs to: itself, or a histogram/summary's for `_bucket`/`_sum`/`_count`. */
export function familyOf(name: string, families: ReadonlyMap<string, string>): string | undefined {
  if (families.has(name)) return name;
  const base = /^(.+)_(bucket|sum|count)$/.exec(name)?.[1];
  const type = base === undefined ? undefined : families.get(base);
  return type === 'histogram' || type === 'summary' ? base : undefined;
}

const PROMQL_WORDS = new Set(['by', 'without', 'on', 'ignoring', 'group_left', 'group_right', 'bool', 'and', 'or', 'unless', 'offset', 'inf', 'nan']);

/**
 * Metric names a PromQL expression selects: identifiers that are not functions or aggregations (followed
 * by `(`), keywords, label names (inside `{}` or a `by (...)` clause), durations or Grafana variables.
 */
export function promqlMetricNames(expr: string): string[] {
  const stripped = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ')
    .replace(/\$\{?\w+\}?/g, ' ');
  const names = new Set<string>();
  for (const match of stripped.matchAll(/(?<![\w.])([A-Za-z_:][\w:]*)(\s*\()?/g)) {
    if (match[2] !== undefined || PROMQL_WORDS.has(match[1]!.toLowerCase())) continue;
    names.add(match[1]!);
  }
  return [...names];
}

interface Panel {
  targets?: Array<{ expr?: string }>;
  panels?: Panel[];
}

interface Dashboard {
  panels?: Panel[];
  templating?: { list?: Array<{ type?: string; query?: string | { query?: string } }> };
}

/** Every PromQL expression of a Grafana dashboard: panel targets (rows included) and query variables. */
export function dashboardExpressions(dashboard: Dashboard): string[] {
  const expressions: string[] = [];
  const visit = (panels: Panel[] = []) => {
    for (const panel of panels) {
      for (const target of panel.targets ?? []) if (target.expr) expressions.push(target.expr);
      visit(panel.panels);
    }
  };
  visit(dashboard.panels);
  for (const variable of dashboard.templating?.list ?? []) {
    if (variable.type !== 'query') continue;
    const query = typeof variable.query === 'string' ? variable.query : variable.query?.query;
    // label_values(selector, label): the selector is the expression; the label is no metric.
    const selector = query && /^label_values\((.+),\s*\w+\)$/.exec(query.trim())?.[1];
    if (selector) expressions.push(selector);
  }
  return expressions;
}
