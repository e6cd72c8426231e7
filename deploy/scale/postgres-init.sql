-- The scaled desk's databases, one per service that keeps state (scripts/scale.ts:
-- DATABASE_SERVICES), made when the PostgreSQL volume is first initialized.
CREATE DATABASE fxdesk_strategy;
CREATE DATABASE fxdesk_execution;
CREATE DATABASE fxdesk_account;
CREATE DATABASE fxdesk_notification;
