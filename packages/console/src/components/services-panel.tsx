import type { ServiceView } from '../service-health.js';

const STATE_LABEL: Record<ServiceView['state'], string> = {
  ok: 'up',
  degraded: 'not ready',
  down: 'down',
  not_configured: 'not configured',
  unknown: 'unknown',
};

/** Each downstream service's state: what the strategy saw calling it and its own readiness checks. */
export function ServicesPanel({ views }: { views: ServiceView[] }) {
  return (
    <section class="panel services" aria-labelledby="services-title">
      <h2 id="services-title">Services</h2>
      <ul class="service-list">
        {views.map((v) => (
          <li key={v.service} data-service={v.service} aria-label={`${v.label}: ${STATE_LABEL[v.state]}`}>
            <span class={`dot dot-${v.state}`} aria-hidden="true" />
            <span class="service-name">{v.label}</span>
            <span class={`badge ${v.state}`}>{STATE_LABEL[v.state]}</span>
            <span class="service-detail">{v.detail}</span>
          </li>
        ))}
      </ul>
    </section>
  );
}
