import type { Schema } from '@fxdesk/core';

/**
 * The notification store's tables, one list of migrations for SQLite (`notification.db`, counted
 * in `PRAGMA user_version`) and PostgreSQL (counted in `fxdesk_migrations`). Times are epoch ms
 * (BIGINT on PostgreSQL), read back as numbers; `seq` orders the deliveries.
 *
 * Steps 1 to 4 are notification.db's history, step for step. Step 5 names the tables
 * `notification_*`, as the PostgreSQL store of before named them so that services can share one
 * database, and adds `notification_pacing`: a PostgreSQL database of that store (its one
 * migration, counted in `fxdesk_schema`) already is step 5's schema, column for column, and is
 * taken there. Index names stay those of the step that made them (PostgreSQL's of before keep
 * their `notification_` prefix); only SQLite names an index in a query (`INDEXED BY`).
 */
export const NOTIFICATION_SCHEMA: Schema = {
  name: 'notification',
  migrations: [
    ({ types: t }) => `
    CREATE TABLE requests (
      id ${t.key} PRIMARY KEY,
      source ${t.key} NOT NULL,
      idempotency_key ${t.key},
      message ${t.text} NOT NULL,
      subject ${t.text},
      content_type ${t.text} NOT NULL,
      channels ${t.text} NOT NULL,
      payload_hash ${t.text} NOT NULL,
      created_at ${t.bigint} NOT NULL
    );
    -- The idempotency claim: one row per (source, key); NULL keys never collide.
    CREATE UNIQUE INDEX requests_idempotency ON requests(source, idempotency_key);

    CREATE TABLE deliveries (
      seq ${t.serialKey},
      id ${t.key} NOT NULL UNIQUE,
      request_id ${t.key} NOT NULL REFERENCES requests(id),
      channel ${t.key} NOT NULL,
      recipient ${t.key} NOT NULL,
      source ${t.key} NOT NULL,
      subject ${t.text},
      status ${t.key} NOT NULL,
      attempts ${t.integer} NOT NULL DEFAULT 0,
      provider ${t.key},
      provider_message_id ${t.key},
      error ${t.text},
      sandbox_request ${t.text},
      next_attempt_at ${t.bigint},
      lease_until ${t.bigint},
      created_at ${t.bigint} NOT NULL,
      updated_at ${t.bigint} NOT NULL,
      sent_at ${t.bigint},
      delivered_at ${t.bigint},
      read_at ${t.bigint}
    );
    CREATE INDEX deliveries_request ON deliveries(request_id, seq);
    -- The outbox's queries name these partial indexes on SQLite (INDEXED BY): its planner would
    -- rather take deliveries_status and sort every pending row.
    CREATE INDEX deliveries_due ON deliveries(next_attempt_at, seq) WHERE status = 'pending';
    CREATE INDEX deliveries_lease ON deliveries(lease_until) WHERE status = 'sending';
    CREATE INDEX deliveries_provider_message ON deliveries(provider_message_id) WHERE provider_message_id IS NOT NULL;
    CREATE INDEX deliveries_newest ON deliveries(created_at, seq);
    CREATE INDEX deliveries_source ON deliveries(source, created_at, seq);
    CREATE INDEX deliveries_recipient ON deliveries(recipient, created_at, seq);
    CREATE INDEX deliveries_status ON deliveries(status, created_at, seq);
    CREATE INDEX deliveries_channel ON deliveries(channel, created_at, seq);
    `,
    ({ types: t }) => `
    -- Where a recipient's messages go now: a Telegram group upgraded to a supergroup has a new chat id.
    CREATE TABLE recipient_routes (
      channel ${t.key} NOT NULL,
      recipient ${t.key} NOT NULL,
      routed_to ${t.key} NOT NULL,
      changed_at ${t.bigint} NOT NULL,
      PRIMARY KEY (channel, recipient)
    );
    -- The provider messages a delivery has sent so far (a long Telegram message goes in parts): a
    -- retry carries on after the last one recorded.
    CREATE TABLE delivery_parts (
      delivery_id ${t.key} NOT NULL REFERENCES deliveries(id),
      part ${t.integer} NOT NULL,
      parts ${t.integer} NOT NULL,
      address ${t.key} NOT NULL,
      provider_message_id ${t.key},
      sent_at ${t.bigint} NOT NULL,
      PRIMARY KEY (delivery_id, part)
    );
    `,
    ({ types: t }) => `
    -- WhatsApp's customer service windows: when each user (by wa_id) last wrote to the business
    -- number. Free-form text reaches them for 24 hours after; the template any time.
    CREATE TABLE messenger_sessions (
      wa_id ${t.key} PRIMARY KEY,
      last_inbound_at ${t.bigint} NOT NULL
    );
    -- MESSENGER_APP deliveries put back in the queue to go as the template after the platform
    -- failed their text with 131047 (at most once each), and that text's wamid: later reports about
    -- it are about a message the template replaced.
    CREATE TABLE messenger_template_resends (
      delivery_id ${t.key} PRIMARY KEY REFERENCES deliveries(id),
      text_wamid ${t.key} NOT NULL,
      failed_at ${t.bigint} NOT NULL
    );
    CREATE INDEX messenger_template_resends_text ON messenger_template_resends(text_wamid);
    `,
    ({ types: t }) => `
    -- The replica that claimed a delivery: only its owner records a retry or a failure on the claim.
    ALTER TABLE deliveries ADD COLUMN owner ${t.key};
    `,
    ({ types: t }) => `
    -- Named for the service, so that services can share one PostgreSQL database (foreign keys
    -- follow a renamed table on both engines).
    ALTER TABLE requests RENAME TO notification_requests;
    ALTER TABLE deliveries RENAME TO notification_deliveries;
    ALTER TABLE recipient_routes RENAME TO notification_recipient_routes;
    ALTER TABLE delivery_parts RENAME TO notification_delivery_parts;
    ALTER TABLE messenger_sessions RENAME TO notification_messenger_sessions;
    ALTER TABLE messenger_template_resends RENAME TO notification_template_resends;
    -- Each pacer's calendar and holds (pacing.ts, as JSON), where the replicas share them: a
    -- decision locks the row, so replicas take turns.
    CREATE TABLE notification_pacing (
      name ${t.key} PRIMARY KEY,
      state ${t.text}
    );
    `,
  ],
  postgresBefore: { store: 'notification', versions: { 1: 5 } },
};
