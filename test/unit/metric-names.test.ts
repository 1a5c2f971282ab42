import { expect } from 'chai';
import { dashboardExpressions, familyOf, metricFamilies, promqlMetricNames } from '../support/metric-names.js';

describe('metric names of a dashboard check (test support)', () => {
  it('finds the metrics a PromQL expression selects, not its functions, labels, keywords or variables', () => {
    expect(promqlMetricNames('histogram_quantile(0.95, sum by (le, kind) (rate(troupe_turn_duration_seconds_bucket{kind=~"$kind"}[$__rate_interval])))')).to.deep.equal([
      'troupe_turn_duration_seconds_bucket',
    ]);
    expect(promqlMetricNames('sum without (instance) (a_total{x="y{z}"}) / on (kind) group_left b_gauge offset 5m > bool 1e3')).to.deep.equal(['a_total', 'b_gauge']);
    expect(promqlMetricNames('max(troupe_queue_jobs) or vector(0)')).to.deep.equal(['troupe_queue_jobs']);
  });

  it('maps sample names to their families', () => {
    const families = metricFamilies('# HELP h_seconds x\n# TYPE h_seconds histogram\nh_seconds_bucket{le="1"} 1\n# TYPE c_total counter\n# TYPE g_count gauge\n');
    expect([...families]).to.deep.equal([
      ['h_seconds', 'histogram'],
      ['c_total', 'counter'],
      ['g_count', 'gauge'],
    ]);
    expect(familyOf('h_seconds_bucket', families)).to.equal('h_seconds');
    expect(familyOf('c_total', families)).to.equal('c_total');
    expect(familyOf('g_count', families)).to.equal('g_count');
    expect(familyOf('c_total_count', families)).to.equal(undefined);
    expect(familyOf('missing_sum', families)).to.equal(undefined);
  });

  it('collects the expressions of panels, nested rows and label_values variables', () => {
    const expressions = dashboardExpressions({
      panels: [{ targets: [{ expr: 'a' }] }, { panels: [{ targets: [{ expr: 'b' }, {}] }] }],
      templating: { list: [{ type: 'query', query: { query: 'label_values(c_count, kind)' } }, { type: 'query', query: 'label_values(d{x="1"}, y)' }, { type: 'datasource', query: 'prometheus' }] },
    });
    expect(expressions).to.deep.equal(['a', 'b', 'c_count', 'd{x="1"}']);
  });
});
