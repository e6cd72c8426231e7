import type { Sweep } from '@fxdesk/schemas';
import { RankTable, SweepRanking } from '../components/heat-map.js';
import { JobStatus, JobUnread } from '../components/job-status.js';
import { RunSettings } from '../components/run-settings.js';
import { WalkForwardTable } from '../components/walk-forward.js';
import { varyingRules } from '../lab/heat-map.js';
import { formatMetric, metricLabel } from '../lab/metrics.js';
import { formatRuleValue, LAB_RULES, ruleSpec, type RuleKey } from '../lab/rules.js';
import { useJob } from '../lab/use-job.js';
import { Link, navigate } from '../router.js';
import { backtestHref, routeHref } from '../routes.js';
import { useDesk } from '../use-desk.js';

/** What the sweep tries: each rule's values (a grid) or ranges (a random sample). */
function Tried({ sweep }: { sweep: Sweep }) {
  const { grid, random } = sweep.settings;
  return (
    <dl class="facts">
      {LAB_RULES.map((rule) => {
        const values = grid?.[rule.key];
        const range = random?.ranges[rule.key];
        if (!values && !range) return null;
        return (
          <div key={rule.key} data-rule={rule.key}>
            <dt>{rule.label}</dt>
            <dd class="num">{values ? values.join(', ') : `${range?.min} to ${range?.max}${range?.step ? ` by ${range.step}` : ''}`}</dd>
          </div>
        );
      })}
      {random && (
        <div>
          <dt>Sample</dt>
          <dd>
            {random.samples} settings, seed {random.seed}
          </dd>
        </div>
      )}
    </dl>
  );
}

/** One sweep: its progress, its ranking as a heat map with each cell opening its backtest, and its walk-forward windows. */
export function SweepPage({ id, x, y }: { id: string; x: RuleKey | null; y: RuleKey | null }) {
  const { api } = useDesk();
  const { job, refresh } = useJob(() => api.sweep(id), { kind: 'sweep', id });
  const lab = routeHref({ page: 'lab' });

  if (job.state !== 'ok') return <JobUnread what="sweep" read={job} />;

  const sweep = job.job;
  const { settings, results } = sweep;
  const metric = settings.rank_by;
  const currency = settings.base.account_currency;
  const best = results.find((r) => r.rank === 1);
  const varying = varyingRules(results);

  return (
    <div class="lab-run">
      <header>
        <p class="crumbs">
          <Link href={lab}>Lab</Link> / Sweep
        </p>
        <h1>{sweep.name ?? 'Sweep'}</h1>
      </header>
      <JobStatus job={sweep} what="sweep" readError={job.error} remove={() => api.deleteSweep(id)} refresh={refresh} />

      <section class="panel" aria-labelledby="sweep-settings-title">
        <h2 id="sweep-settings-title">
          {sweep.settings_count} settings ranked by {metricLabel(metric)}
          {settings.walk_forward
            ? `, walk-forward over ${settings.walk_forward.windows} windows (${Math.round(settings.walk_forward.in_sample_fraction * 100)} % in-sample)`
            : ''}
        </h2>
        <Tried sweep={sweep} />
        <details>
          <summary>The base backtest</summary>
          <RunSettings settings={settings.base} />
        </details>
      </section>

      <section class="panel" aria-labelledby="ranking-title">
        <h2 id="ranking-title">Ranking</h2>
        {best && (
          <p class="best">
            Best:{' '}
            <Link href={backtestHref(best.backtest_id)}>
              {varying.map((k) => `${ruleSpec(k).label} ${formatRuleValue(ruleSpec(k), best.rules[k])}`).join(' · ') || 'the one setting'}
            </Link>{' '}
            with {metricLabel(metric)} {formatMetric(metric, best.metric, currency)}
          </p>
        )}
        {results.length === 0 ? (
          <p class="empty">{sweep.status === 'queued' ? 'No result yet: the sweep waits for a worker.' : 'No result yet.'}</p>
        ) : (
          <>
            <SweepRanking
              results={results}
              metric={metric}
              currency={currency}
              x={x}
              y={y}
              onAxes={(nx, ny) => navigate(routeHref({ page: 'sweep', id, x: nx, y: ny }), true)}
            />
            {varying.length > 1 && (
              <details>
                <summary>All {results.length} settings ranked</summary>
                <RankTable results={results} metric={metric} currency={currency} by={null} />
              </details>
            )}
          </>
        )}
      </section>

      {sweep.walk_forward && (
        <section class="panel" aria-labelledby="wf-title">
          <h2 id="wf-title">Walk-forward: in-sample against out-of-sample</h2>
          <WalkForwardTable result={sweep.walk_forward} metric={metric} currency={currency} varying={varying} />
        </section>
      )}
    </div>
  );
}
